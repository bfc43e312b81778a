#!/usr/bin/env node
// The structure drawn from the imports: reads the #include graph of cpp/ (and of the C++ tests) and the import
// graph of web/src, prints the rooms (folders) floor by floor, bottom-up, with the rooms each one includes,
// and exits 1 on an include that goes up a floor or sideways (to another room on the same floor), on a
// circle between files, on a library in CMakeLists.txt that links upwards or is not the folders this script
// says, and on a test program that includes or links above its own library's floor.
//   node tools/layers.mjs [root]   (no dependencies; run by tests/node/layers.test.mjs)
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { walk } from './walk.mjs';

// ---- the floors: the one place that says what may include what (matches the comment atop CMakeLists.txt) --
// Bottom-up. A room (a folder of cpp/ or web/src) may include its own files and the rooms of lower floors;
// rooms on one floor are independent of each other.
const CPP_FLOORS = [
  ['support'], // Result, LessonError, the generic budget checks
  ['tensor'],
  ['autograd'],
  ['nn'],
  ['attention'],
  ['text', 'response'], // number formatting; the shared response and error types
  ['chapter26', 'self_score', 'bench'],
  ['learner', 'scale'],
  ['api'],
  ['cli', 'wasm'], // the front ends
];
// The CMake library (or program) each room is built into; qkv_library() targets are checked against these.
const CPP_TARGETS = {
  support: 'qkv_core', tensor: 'qkv_core', autograd: 'qkv_core', nn: 'qkv_core', attention: 'qkv_core',
  text: 'qkv_text', response: 'qkv_response', chapter26: 'qkv_chapter26', self_score: 'qkv_self_score',
  bench: 'qkv_bench', learner: 'qkv_learner', scale: 'qkv_wasm_scale', api: 'qkv_api', cli: 'qkv_lesson_cli',
  wasm: 'qkv_wasm, qkv_wasm_test, qkv_wasm_scale',
};
const WEB_FLOORS = [
  ['wasm'], // the modules built from cpp/ (generated, not read)
  ['math'],
  ['lesson'], // the <qkv-lesson> element and its parts
  ['.'], // the page's entry points (web/src/*.ts)
];

// The tree to read: the repository, or another checkout given as the argument (the node test's broken copies).
const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const problems = [];

function floorsOf(floors) {
  const floor = new Map();
  floors.forEach((rooms, i) => rooms.forEach((room) => floor.set(room, i)));
  return floor;
}

const rel = (path) => relative(root, path);

// ---- the graphs ---------------------------------------------------------------------------------------

// #include "x/y.hpp": from cpp/ (the include path), else beside the including file (tests' own headers).
function cppIncludes(file) {
  const text = readFileSync(file, 'utf8');
  const out = [];
  for (const [, name] of text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
    const candidates = [join(root, 'cpp', name), join(dirname(file), name)];
    const found = candidates.find((path) => existsSync(path));
    if (found) out.push(found);
    else problems.push(`${rel(file)}: #include "${name}" names no file`);
  }
  return out;
}

// Static and dynamic imports, re-exports and `import type`, with Vite's ?url suffix dropped, and the workers a
// file starts (`new Worker(new URL('./….ts', import.meta.url))`: the starter depends on the worker's code);
// only relative specifiers (packages and virtual modules are outside the tree).
function webImports(file) {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|\s)\/\/.*$/gm, '$1');
  const specifiers = [
    ...[...text.matchAll(/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g)].map((m) => m[1]),
    ...[...text.matchAll(/\bimport\s*['"]([^'"]+)['"]/g)].map((m) => m[1]),
    ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
    ...[...text.matchAll(/\bnew\s+Worker\(\s*new\s+URL\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1]),
  ];
  const out = [];
  for (const specifier of specifiers) {
    if (!specifier.startsWith('.')) continue;
    const base = resolve(dirname(file), specifier.replace(/\?.*$/, ''));
    if (relative(webRoot, base).startsWith('..')) continue; // a file outside web/src (the package's package.json): data, no room
    const candidates = [base, `${base}.ts`, `${base}.d.ts`, `${base}.mjs`, `${base}.js`, join(base, 'index.ts')];
    // A generated module (web/src/wasm) may be absent before the first build: it is still its room.
    out.push(candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? base);
  }
  return out;
}

// Tarjan's strongly connected components: every group of two or more files that reach each other.
function circles(graph) {
  let next = 0;
  const index = new Map(), low = new Map(), stack = [], onStack = new Set(), found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(group.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

// Checks one tree's edges against its floors; returns each room's set of included rooms.
function checkTree(label, files, roomOf, floors, edgesOf) {
  const floor = floorsOf(floors);
  const graph = new Map();
  const arrows = new Map();
  for (const file of files) {
    const from = roomOf(file);
    if (!floor.has(from)) {
      problems.push(`${rel(file)}: room "${from}" is on no floor (add it to ${label}'s floors in tools/layers.mjs)`);
      continue;
    }
    const edges = edgesOf(file);
    graph.set(file, edges);
    for (const target of edges) {
      const to = roomOf(target);
      if (to === from) continue;
      if (!arrows.has(from)) arrows.set(from, new Set());
      arrows.get(from).add(to);
      if (!floor.has(to)) problems.push(`${rel(file)} includes ${rel(target)}: room "${to}" is on no floor`);
      else if (floor.get(to) >= floor.get(from)) {
        const way = floor.get(to) === floor.get(from) ? 'sideways' : 'up';
        problems.push(`${rel(file)} includes ${rel(target)}: ${way}, from ${from} (floor ${floor.get(from) + 1}) ` +
                      `to ${to} (floor ${floor.get(to) + 1})`);
      }
    }
  }
  for (const group of circles(graph)) problems.push(`${label}: a circle: ${group.map(rel).join(' <-> ')}`);
  return arrows;
}

function printTree(title, floors, arrows, note = () => '') {
  const floor = floorsOf(floors);
  const width = Math.max(...floors.flat().map((room) => room.length));
  console.log(title);
  floors.forEach((rooms, i) => {
    rooms.forEach((room, j) => {
      const to = [...(arrows.get(room) ?? [])].sort((a, b) => floor.get(b) - floor.get(a) || a.localeCompare(b));
      const head = `${j === 0 ? String(i + 1).padStart(4) : '    '}  ${room.padEnd(width)}`;
      console.log(`${head}  ${note(room)}${to.length ? ` -> ${to.join(', ')}` : ''}`.trimEnd());
    });
  });
}

// ---- C++ ------------------------------------------------------------------------------------------------

const cppRoom = (file) => {
  const path = rel(file).split('/');
  return path[0] === 'cpp' ? path[1] : path.slice(0, -1).join('/');
};
const cppFiles = walk(join(root, 'cpp'), (path) => /\.(cpp|hpp)$/.test(path));
const cppArrows = checkTree('cpp', cppFiles, cppRoom, CPP_FLOORS, cppIncludes);

// CMakeLists.txt: each qkv_library's folders, its links, and each test program's floor.
const cmake = readFileSync(join(root, 'CMakeLists.txt'), 'utf8').replace(/#.*$/gm, '');
const calls = (name) => [...cmake.matchAll(new RegExp(`\\b${name}\\(([^)]*)\\)`, 'g'))].map((m) => m[1].trim().split(/\s+/));
const variables = new Map(calls('set').map(([name, ...values]) => [name, values]));
const expand = (words) => words.flatMap((word) => {
  const m = /^\$\{(\w+)\}$/.exec(word);
  return m && variables.has(m[1]) ? variables.get(m[1]) : [word];
});
const cppFloor = floorsOf(CPP_FLOORS);
const libraryRooms = new Map();
for (const [name, ...globs] of calls('qkv_library')) {
  const rooms = [...new Set(expand(globs).map((glob) => glob.split('/')[1]))];
  // qkv_core_fast (WebAssembly): the core's sources again, at another optimisation level.
  if ([...libraryRooms.values()].some((other) => other.join() === rooms.join())) continue;
  libraryRooms.set(name, rooms);
  for (const room of rooms) {
    if (CPP_TARGETS[room] !== name) problems.push(`CMakeLists.txt: ${name} builds cpp/${room}, which tools/layers.mjs gives to ${CPP_TARGETS[room] ?? 'no library'}`);
  }
}
for (const [room, target] of Object.entries(CPP_TARGETS)) {
  if (/^qkv_(core|text|response|chapter26|self_score|learner|api)$/.test(target) && !libraryRooms.get(target)?.includes(room))
    problems.push(`CMakeLists.txt: no qkv_library(${target} cpp/${room}/*.cpp)`);
}
libraryRooms.set('qkv_bench', ['bench']); // an object library (add_library ... OBJECT)
libraryRooms.set('qkv_cli_request', ['cli']); // the tool's request path, which its tests and the fuzzer link too
const top = (rooms) => Math.max(...rooms.map((room) => cppFloor.get(room)));
const bottom = (rooms) => Math.min(...rooms.map((room) => cppFloor.get(room)));
const links = new Map();
for (const [target, ...words] of calls('target_link_libraries')) {
  const libraries = words.filter((word) => libraryRooms.has(word));
  links.set(target, [...(links.get(target) ?? []), ...libraries]);
  if (!libraryRooms.has(target)) continue;
  for (const library of libraries) {
    if (top(libraryRooms.get(library)) >= bottom(libraryRooms.get(target)))
      problems.push(`CMakeLists.txt: ${target} links ${library}, which is not below it`);
  }
}

// Test programs: qkv_tests(name library sources...). A program's rooms are its library's and those of any
// cpp/ source it compiles; it may include and link only those rooms and lower floors.
const testLines = [];
for (const [name, library, ...sources] of calls('qkv_tests')) {
  const rooms = new Set(libraryRooms.get(library) ?? []);
  for (const source of sources) if (source.startsWith('cpp/')) rooms.add(source.split('/')[1]);
  const allowed = (room) => rooms.has(room) || cppFloor.get(room) < bottom([...rooms]);
  for (const linked of links.get(name) ?? []) {
    for (const room of libraryRooms.get(linked)) {
      if (!allowed(room)) problems.push(`CMakeLists.txt: ${name} (tests of ${library}) links ${linked}, above its floor`);
    }
  }
  // Every file the program's sources include, through the tests' own headers.
  const seen = new Set();
  const queue = sources.filter((source) => source.startsWith('tests/')).map((source) => join(root, source));
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const target of cppIncludes(file)) {
      if (!rel(target).startsWith('cpp/')) queue.push(target);
      else if (!allowed(cppRoom(target)))
        problems.push(`${rel(file)} (in ${name}, tests of ${library}) includes ${rel(target)}, above its floor`);
    }
  }
  const extra = (links.get(name) ?? []).filter((linked) => linked !== library);
  testLines.push(`  ${name.padEnd(22)} ${[...rooms].join(', ')}${extra.length ? ` (also links ${extra.join(', ')})` : ''}`);
}

// ---- web/src --------------------------------------------------------------------------------------------

const webRoot = join(root, 'web', 'src');
const webRoom = (file) => {
  const path = relative(webRoot, file).split('/');
  return path.length === 1 ? '.' : path[0];
};
const webFiles = walk(webRoot, (path) => /\.(ts|mjs)$/.test(path) && webRoom(path) !== 'wasm');
const webArrows = checkTree('web/src', webFiles, webRoom, WEB_FLOORS, webImports);

// ---- the report -----------------------------------------------------------------------------------------

printTree('cpp/ (#include), bottom-up: floor, room, what it is built into, the rooms it includes', CPP_FLOORS, cppArrows,
  (room) => `[${CPP_TARGETS[room]}]`);
console.log('tests/cpp: each program and the rooms it tests (it includes and links only those and lower floors)');
for (const line of testLines) console.log(line);
printTree('web/src (import), bottom-up: floor, folder (. = the entry points), the folders it imports', WEB_FLOORS, webArrows);
console.log(`${cppFiles.length} C++ files, ${webFiles.length} web files`);
if (problems.length) {
  console.log(`\n${problems.length} problem${problems.length === 1 ? '' : 's'}:`);
  for (const problem of problems) console.log(`  ${problem}`);
  process.exit(1);
}
console.log('no include goes up or sideways, and no circle');
