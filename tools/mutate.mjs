#!/usr/bin/env node
// Mutation testing (not part of npm test or CI): applies the documented sample of realistic one-line mutants in
// tools/mutants.json, one at a time, to a private copy of the repository at HEAD, rebuilds only what each one
// touches, runs the tests that can see it and records which test killed it. Three kinds of mutant:
// - of cpp/: the whole ctest suite (native build, Release);
// - of cpp/ and marked "node": true: if ctest leaves it alive (or the file is WebAssembly-only), the Node suite's
//   files that load a WebAssembly module, against the copy's non-SIMD modules rebuilt from the mutant;
// - of web/ (marked "tests": [files]): those test files; a browser test file gets dist/ rebuilt first.
//
//   npm run mutate                       every mutant (35 min with --jobs 2 on 2 busy cores, a fresh copy's builds included)
//   npm run mutate -- --only <id>[,<id>] some of them
//   npm run mutate -- --list             the sample, without running anything
//   options: --jobs N (ninja and ctest, default 1), --timeout S (per mutant, default 600),
//            --tree DIR (default /tmp/mutate-tree), --build DIR (default /tmp/mutate-build),
//            --exclude REGEX (tests left out, passed to ctest -E and printed with the results),
//            --ref COMMIT (the commit to mutate, default HEAD: e.g. one made with git commit-tree to try
//            tests before committing them), --node-only (a "node" mutant skips ctest: does the Node suite alone
//            kill it?)
//
// The working tree is never touched: the copy is a detached git worktree at HEAD (so commit a test before
// running this). Its WebAssembly builds (build/wasm, build/wasm-simd inside the copy, the modules in the copy's
// web/src/wasm) are made once, from HEAD, when a "node" or web mutant is chosen. Every mutant is undone when it
// has been tried, and also when the run fails or is interrupted (Ctrl-C). Files outside the native build
// (cpp/wasm, cpp/scale) not marked "node" are listed as "not built" and left out of the score, as are mutants
// that do not compile and the equivalent ones (marked in mutants.json with the reason).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sample = JSON.parse(readFileSync(join(repo, 'tools/mutants.json'), 'utf8'));
process.env.NODE_PATH ??= '/usr/share/nodejs'; // Emscripten's optimiser needs Debian's acorn (scripts/build.sh)

function parseArgs(argv) {
  const options = { jobs: 1, timeout: 600, tree: '/tmp/mutate-tree', build: '/tmp/mutate-build', only: null, list: false, exclude: '', ref: 'HEAD', nodeOnly: false };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--list') options.list = true;
    else if (arg === '--only') options.only = value().split(',').filter(Boolean);
    else if (arg === '--jobs') options.jobs = Number.parseInt(value(), 10);
    else if (arg === '--timeout') options.timeout = Number.parseInt(value(), 10);
    else if (arg === '--tree') options.tree = resolve(value());
    else if (arg === '--build') options.build = resolve(value());
    else if (arg === '--exclude') options.exclude = value();
    else if (arg === '--ref') options.ref = value();
    else if (arg === '--node-only') options.nodeOnly = true;
    else throw new Error(`unknown option ${arg} (see the comment at the top of tools/mutate.mjs)`);
  }
  if (!(options.jobs >= 1) || !(options.timeout >= 1)) throw new Error('--jobs and --timeout must be positive integers');
  return options;
}

// The process groups of the commands running now, ended if the run is interrupted.
const running = new Set();

function run(command, args, { cwd = repo, timeout = 0 } = {}) {
  // Niced, in its own process group so that a timeout ends the whole tree (ctest and its tests).
  return new Promise((done) => {
    const child = spawn('nice', ['-n', '10', command, ...args], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child.pid);
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = timeout > 0 ? setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
    }, timeout * 1000) : null;
    child.on('close', (code) => {
      running.delete(child.pid);
      if (timer) clearTimeout(timer);
      done({ code, output, timedOut });
    });
  });
}

// What puts the copy's mutated file back: run on the way out of each mutant, and on Ctrl-C or a kill.
let undoMutant = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const group of running) {
      try { process.kill(-group, 'SIGKILL'); } catch { /* already gone */ }
    }
    const restored = undoMutant ? ` (the copy's mutated ${undoMutant.file} restored)` : '';
    undoMutant?.();
    console.error(`\nmutate: stopped by ${signal}${restored}`);
    process.exit(130);
  });
}

function git(args) {
  const result = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

const count = (text, part) => (part === '' ? 0 : text.split(part).length - 1);
const pad = (text, width) => String(text).padEnd(width);
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(0);
const isWeb = (m) => m.file.startsWith('web/');
const suiteOf = (m) => (isWeb(m) ? 'web' : m.node ? 'cpp+node' : 'cpp');

function listSample() {
  for (const m of sample.mutants) {
    console.log(`${pad(m.id, 34)} ${pad(m.file, 38)} ${pad(suiteOf(m), 9)} ${m.why}`);
    if (m.tests) console.log(`${pad('', 34)} tests: ${m.tests.join(' ')}`);
    if (m.equivalent) console.log(`${pad('', 34)} equivalent: ${m.equivalent}`);
  }
  console.log(`${sample.mutants.length} mutants (${sample.mutants.filter(isWeb).length} of web/, ${sample.mutants.filter((m) => m.node).length} also run by the Node suite), ` +
    `${sample.mutants.filter((m) => m.equivalent).length} marked equivalent`);
}

// The tests that failed, from ctest's summary ("  12 - Suite.Name (Failed)").
function failedTests(output) {
  const tail = output.split('The following tests FAILED:')[1] ?? '';
  return [...tail.matchAll(/^\s*\d+ - (\S+) \(([^)]+)\)/gm)].map((match) => `${match[1]} (${match[2]})`);
}

// The first failing test in node --test's TAP output (a subtest is listed before the test holding it), with
// the file its YAML block locates it in ("location: '/…/tests/node/x.test.mjs:12:3'").
function failedNodeTest(output, tree) {
  const failure = output.match(/^\s*not ok \d+ - (.*)$/m);
  if (!failure) return null;
  const block = output.slice(failure.index + failure[0].length).split(/^\s*\.\.\.$/m)[0];
  const file = (block.match(/location: '(.*?):\d+:\d+'/) ?? [])[1];
  return file ? `${file.replace(`${tree}/`, '')}: ${failure[1]}` : failure[1];
}

async function prepare(options) {
  const head = git(['rev-parse', '--verify', `${options.ref}^{commit}`]);
  if (existsSync(join(options.tree, '.git'))) {
    // A worktree of ours from an earlier run: move it to HEAD, dropping any mutant an interrupted run left.
    const sync = spawnSync('git', ['-C', options.tree, 'checkout', '--force', '--detach', head], { encoding: 'utf8' });
    if (sync.status !== 0) throw new Error(`cannot move ${options.tree} to HEAD: ${sync.stderr.trim()}`);
  } else {
    git(['worktree', 'add', '--detach', options.tree, head]);
  }
  if (!existsSync(join(options.build, 'build.ninja'))) {
    const configured = await run('cmake', ['-S', options.tree, '-B', options.build, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release']);
    if (configured.code !== 0) throw new Error(`cmake failed:\n${configured.output}`);
  }
  return head;
}

// The GoogleTest program of the library a source belongs to (CMakeLists.txt: one per library; the core's
// folders share one). A mutant is first run against it alone; ctest then runs everything.
const kOwnTests = {
  tensor: 'qkv_core_tests', autograd: 'qkv_core_tests', nn: 'qkv_core_tests', attention: 'qkv_core_tests',
  support: 'qkv_core_tests', text: 'qkv_text_tests', chapter26: 'qkv_chapter26_tests', self_score: 'qkv_self_score_tests',
  learner: 'qkv_learner_tests', api: 'qkv_api_tests', cli: 'qkv_cli_tests', bench: 'qkv_bench_tests',
};
function ownTests(file, buildDir) {
  const folder = file.split('/')[1];
  return kOwnTests[folder] && existsSync(join(buildDir, kOwnTests[folder])) ? kOwnTests[folder] : null;
}

function ctestArgs(options) {
  const args = ['--test-dir', options.build, '--stop-on-failure', '-j', String(options.jobs), '--timeout', String(options.timeout)];
  if (options.exclude) args.push('-E', options.exclude);
  return args;
}

// The native build's outputs, and each source's object files (a source may be compiled into more than one
// target). The objects are kept before a mutant is built and put back with the restored source, which gets its
// old time back, so the next build need not recompile the original. The object keeps the mutant build's time
// (the one ninja's logs hold), and every other output that build rewrote (archives, programs, test lists) is
// dated 1970, so ninja rebuilds it from the unmutated objects. Were any of this wrong, ninja would only
// recompile: the unmutated tree's tests run once more at the end to show that it is whole.
function nativeBuild(options) {
  const outputs = spawnSync('ninja', ['-C', options.build, '-t', 'targets', 'all'], { encoding: 'utf8' }).stdout
    .split('\n').filter((line) => line && !line.endsWith(': phony')).map((line) => resolve(options.build, line.replace(/: \S+$/, '')));
  const commands = JSON.parse(readFileSync(join(options.build, 'compile_commands.json'), 'utf8'));
  const objects = new Map();
  for (const entry of commands) {
    const source = resolve(entry.directory, entry.file);
    const object = (entry.command.match(/ -o (\S+)/) ?? [])[1];
    if (!objects.has(source)) objects.set(source, []);
    if (object) objects.get(source).push(resolve(entry.directory, object));
  }
  return { ninja: ['-C', options.build, `-j${options.jobs}`], outputs, objects };
}

// Keeps a source's native objects before its mutant is built; returns what puts them back (synchronous: it
// also runs from a signal handler).
function keepNativeObjects(native, path) {
  const kept = native.objects.get(path).filter((object) => existsSync(object)).map((object) => [object, `${object}.unmutated`]);
  for (const [object, copy] of kept) copyFileSync(object, copy);
  const buildStart = Date.now();
  return () => {
    const keptObjects = new Set(kept.map(([object]) => object));
    for (const [object, copy] of kept) {
      const built = existsSync(object) ? statSync(object).mtime : new Date();
      copyFileSync(copy, object);
      utimesSync(object, built, built);
    }
    for (const output of native.outputs) {
      if (keptObjects.has(output) || !existsSync(output) || statSync(output).mtimeMs < buildStart) continue;
      utimesSync(output, new Date(0), new Date(0));
    }
  };
}

// The ctest verdict on a mutant already written into the copy. Without `tests` it is only built (the Node suite
// runs the native tool too, which must be the mutant's).
async function nativeVerdict(m, native, options, tests = true) {
  const build = await run('ninja', native.ninja);
  if (build.code !== 0) return { status: 'not compiled', detail: (build.output.match(/error: .*/) ?? ['build failed'])[0].slice(0, 100) };
  if (!tests) return { status: 'survived', detail: '' };
  // The mutated library's own test program first (ctest runs the core's tests before the others', so a fault
  // in the API would otherwise wait for them all), then, if it passes, the whole suite.
  const own = ownTests(m.file, options.build);
  const first = own && !options.exclude ? await run(join(options.build, own), ['--gtest_brief=1'], { cwd: options.build, timeout: options.timeout }) : null;
  if (first && first.timedOut) return { status: 'killed', detail: `${own} passed the limit of ${options.timeout} s` };
  if (first && first.code !== 0) {
    const failed = first.output.match(/^\[ {2}FAILED {2}\] ([\w/.]+)/m);
    return { status: 'killed', detail: failed ? `${failed[1]} (Failed)` : `${own} exited with ${first.code ?? 'a signal'}` };
  }
  const suite = await run('ctest', ctestArgs(options), { timeout: options.timeout });
  if (suite.timedOut) return { status: 'killed', detail: `the test run passed the limit of ${options.timeout} s` };
  if (suite.code !== 0) return { status: 'killed', detail: failedTests(suite.output)[0] ?? 'ctest failed' };
  return { status: 'survived', detail: '' };
}

// The non-SIMD modules the Node suite loads: the page's, the scale section's and the tests' (ninja relinks
// only those the mutated source is part of). The SIMD variants stay as HEAD built them.
const kWasmTargets = ['qkv_wasm', 'qkv_wasm_scale', 'qkv_wasm_test'];

const linkTo = (link, target) => {
  if (!existsSync(link)) symlinkSync(target, link);
};

// The copy's WebAssembly side, as scripts/build.sh makes it: both variants built from HEAD into the copy's
// build/wasm and build/wasm-simd (the modules land in its web/src/wasm), its generated types, and a link to
// the native build (build/native, which the Node suite also runs).
async function prepareWasm(options) {
  mkdirSync(join(options.tree, 'build'), { recursive: true });
  linkTo(join(options.tree, 'build/native'), options.build);
  for (const [dir, simd] of [['build/wasm', 'OFF'], ['build/wasm-simd', 'ON']]) {
    const buildDir = join(options.tree, dir);
    if (!existsSync(join(buildDir, 'build.ninja'))) {
      const configured = await run('emcmake', ['cmake', '-S', options.tree, '-B', buildDir, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release',
        `-DQKV_WASM_SIMD=${simd}`, '-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node']);
      if (configured.code !== 0) throw new Error(`emcmake cmake (${dir}) failed:\n${configured.output.slice(-4000)}`);
    }
    const built = await run('ninja', ['-C', buildDir, `-j${options.jobs}`]);
    if (built.code !== 0) throw new Error(`the unmutated WebAssembly build (${dir}) fails:\n${built.output.slice(-4000)}`);
  }
  const types = await run(process.execPath, ['scripts/generate-core-types.mjs'], { cwd: options.tree });
  if (types.code !== 0) throw new Error(`generate-core-types failed:\n${types.output}`);
  const buildDir = join(options.tree, 'build/wasm');
  const outputs = spawnSync('ninja', ['-C', buildDir, '-t', 'targets', 'all'], { encoding: 'utf8' }).stdout
    .split('\n').map((line) => line.replace(/: \S+$/, '')).filter(Boolean);
  return {
    ninja: ['-C', buildDir, `-j${options.jobs}`, ...kWasmTargets],
    // A source's objects in this build ("CMakeFiles/qkv_learner.dir/cpp/learner/exercises.cpp.o").
    objects: (file) => outputs.filter((output) => output.endsWith(`/${file}.o`)).map((output) => join(buildDir, output)),
  };
}

// The Node suite's files that load a WebAssembly module (tests/node/load.mjs): the ones a mutant of cpp/ can reach.
function nodeFilesLoadingTheCore(tree) {
  const dir = join(tree, 'tests/node');
  return readdirSync(dir).filter((name) => name.endsWith('.test.mjs'))
    .filter((name) => /\bload(?:Core|ScaleCore|TestCore)\(/.test(readFileSync(join(dir, name), 'utf8')))
    .map((name) => `tests/node/${name}`);
}

// Node test files run in the copy, one at a time; the first failing test named.
async function testFilesVerdict(files, options) {
  const tests = await run(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=tap', ...files], { cwd: options.tree, timeout: options.timeout });
  if (tests.timedOut) return { status: 'killed', detail: `node --test passed the limit of ${options.timeout} s` };
  if (tests.code !== 0) return { status: 'killed', detail: failedNodeTest(tests.output, options.tree) ?? `node --test exited with ${tests.code ?? 'a signal'}` };
  return { status: 'survived', detail: '' };
}

// The Node suite's verdict on a mutant of cpp/ already written into the copy: its modules rebuilt first.
async function nodeVerdict(context) {
  const build = await run('ninja', context.wasm.ninja);
  if (build.code !== 0) return { status: 'not compiled', detail: `WebAssembly: ${(build.output.match(/error: .*/) ?? ['build failed'])[0].slice(0, 90)}` };
  return testFilesVerdict(context.nodeFiles, context.options);
}

// Writes one mutant into the copy, asks the tests that can see it, and puts the file back, whatever happens.
async function tryMutant(m, context) {
  const { options, native } = context;
  const path = join(options.tree, m.file);
  const original = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const occurrences = count(original, m.original);
  if (occurrences !== 1) return { status: 'stale', detail: `original text occurs ${occurrences} times in ${m.file} at HEAD` };
  const inNative = native.objects.has(path);
  if (!isWeb(m) && !inNative && !m.node) return { status: 'not built', detail: 'not part of the native build (WebAssembly only)' };

  const sourceTime = statSync(path).mtime;
  const putNativeObjectsBack = inNative ? keepNativeObjects(native, path) : null;
  let undone = false;
  let wasmTouched = false; // the WebAssembly build has seen the mutant
  undoMutant = () => {
    if (undone) return;
    undone = true;
    writeFileSync(path, original);
    utimesSync(path, sourceTime, sourceTime);
    putNativeObjectsBack?.();
    // The WebAssembly objects built from the mutant are newer than the restored source: removed, they are rebuilt.
    if (wasmTouched) for (const object of context.wasm.objects(m.file)) rmSync(object, { force: true });
  };
  undoMutant.file = m.file;
  writeFileSync(path, original.replace(m.original, () => m.replacement));
  try {
    if (isWeb(m)) return await testFilesVerdict(m.tests, options);
    let verdict = { status: 'survived', detail: '' };
    if (inNative) verdict = await nativeVerdict(m, native, options, !(m.node && options.nodeOnly));
    if (verdict.status === 'survived' && m.node) {
      wasmTouched = true;
      verdict = await nodeVerdict(context);
    }
    return verdict;
  } finally {
    undoMutant();
    undoMutant = null;
    // The copy's modules whole again before the next mutant (a web mutant's tests may load them).
    if (wasmTouched && (await run('ninja', context.wasm.ninja)).code !== 0) throw new Error(`the restored WebAssembly build fails after ${m.id}`);
  }
}

// A mutant's sample entry checked before anything runs: a web mutant names Node test files that exist.
function checkEntry(m) {
  if (!isWeb(m)) return;
  if (!Array.isArray(m.tests) || m.tests.length === 0) throw new Error(`${m.id}: a mutant of web/ names its test files ("tests")`);
  for (const file of m.tests) {
    if (!/^tests\/node\/[\w-]+\.test\.mjs$/.test(file)) throw new Error(`${m.id}: ${file} is not a Node test file (web mutants run tests/node files only: a browser test would need dist/ rebuilt)`);
    if (!existsSync(join(repo, file))) throw new Error(`${m.id}: ${file} does not exist`);
  }
}

// Every test this run will ask, on the unmutated copy: ctest, and the Node files the chosen mutants need.
async function checkUnmutated(context, label) {
  const { options, native } = context;
  const build = await run('ninja', native.ninja);
  if (build.code !== 0) return `the native build fails:\n${build.output.slice(-4000)}`;
  const base = await run('ctest', ctestArgs(options), { timeout: options.timeout * 4 });
  if (base.code !== 0) return `${label}: ctest fails (${failedTests(base.output).join(', ')})`;
  if (context.baselineFiles.length === 0) return null;
  if (context.wasm && (await run('ninja', context.wasm.ninja)).code !== 0) return `${label}: the WebAssembly build fails`;
  const node = await testFilesVerdict(context.baselineFiles, options);
  return node.status === 'survived' ? null : `${label}: the Node files fail (${node.detail})`;
}

function chooseMutants(options) {
  if (!options.only) return sample.mutants;
  const unknown = options.only.filter((id) => !sample.mutants.some((m) => m.id === id));
  if (unknown.length) throw new Error(`no mutant named ${unknown.join(', ')} (npm run mutate -- --list)`);
  return sample.mutants.filter((m) => options.only.includes(m.id));
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.list) return listSample();
  const chosen = chooseMutants(options);
  chosen.forEach(checkEntry);
  const started = Date.now();
  const head = await prepare(options);
  console.log(`mutation run of ${head.slice(0, 7)} in ${options.tree}, build ${options.build}, -j${options.jobs}` +
    (options.exclude ? `, tests excluded: ${options.exclude}` : ', no test excluded') + (options.nodeOnly ? ', "node" mutants by the Node suite only' : ''));

  const baseBuild = await run('ninja', ['-C', options.build, `-j${options.jobs}`]);
  if (baseBuild.code !== 0) throw new Error(`the unmutated tree does not build:\n${baseBuild.output.slice(-4000)}`);
  const context = { options, native: nativeBuild(options), wasm: null, nodeFiles: [], baselineFiles: [] };
  if (chosen.some((m) => m.node || isWeb(m))) {
    linkTo(join(options.tree, 'node_modules'), join(repo, 'node_modules'));
    const webFiles = chosen.filter(isWeb).flatMap((m) => m.tests);
    const nodeFiles = nodeFilesLoadingTheCore(options.tree);
    // Web mutants whose tests load no module need no WebAssembly build.
    if (chosen.some((m) => m.node) || webFiles.some((file) => nodeFiles.includes(file))) context.wasm = await prepareWasm(options);
    if (chosen.some((m) => m.node)) context.nodeFiles = nodeFiles;
    context.baselineFiles = [...new Set([...context.nodeFiles, ...webFiles])];
  }
  const baseStart = Date.now();
  const problem = await checkUnmutated(context, 'the unmutated tree');
  if (problem) throw new Error(`${problem}; fix that first`);
  console.log(`unmutated: ctest${context.baselineFiles.length ? ` and ${context.baselineFiles.length} Node files` : ''} pass in ${seconds(baseStart)} s (setup ${seconds(started)} s)\n`);

  const results = [];
  for (const m of chosen) {
    const t0 = Date.now();
    const result = { ...m, ...(await tryMutant(m, context)), seconds: 0 };
    result.seconds = Number(seconds(t0));
    results.push(result);
    console.log(`${pad(result.id, 34)} ${pad(result.status, 13)} ${pad(`${result.seconds} s`, 6)} ${result.detail}`);
  }
  const whole = await checkUnmutated(context, 'the restored tree');
  console.log(whole ? `\nWARNING: ${whole}: the results above are not to be trusted` : '\nunmutated tree restored: its tests pass again');
  report(results, started);
}

function report(results, started) {
  const scored = results.filter((r) => !r.equivalent && (r.status === 'killed' || r.status === 'survived'));
  const killed = scored.filter((r) => r.status === 'killed');
  const survivors = scored.filter((r) => r.status === 'survived');
  const equivalent = results.filter((r) => r.equivalent);
  const excluded = results.filter((r) => !r.equivalent && !['killed', 'survived'].includes(r.status));
  console.log(`\n${'mutant'.padEnd(34)} ${'file'.padEnd(38)} ${'suites'.padEnd(9)} ${'result'.padEnd(13)} test that killed it / note`);
  for (const r of results) {
    const status = r.equivalent ? `${r.status} (eq.)` : r.status;
    console.log(`${pad(r.id, 34)} ${pad(r.file, 38)} ${pad(suiteOf(r), 9)} ${pad(status, 13)} ${r.detail}`);
  }
  console.log(`\nsurvivors (not equivalent): ${survivors.length ? '' : 'none'}`);
  for (const r of survivors) console.log(`  ${r.id}: ${r.why}`);
  console.log(`equivalent (left out of the score): ${equivalent.length ? '' : 'none'}`);
  for (const r of equivalent) console.log(`  ${r.id} [${r.status}]: ${r.equivalent}`);
  if (excluded.length) {
    console.log('left out of the score:');
    for (const r of excluded) console.log(`  ${r.id} [${r.status}]: ${r.detail}`);
  }
  const score = scored.length ? (100 * killed.length) / scored.length : 0;
  console.log(`\nscore: ${killed.length} killed of ${scored.length} non-equivalent compiled mutants = ${score.toFixed(1)}%` +
    ` (${results.length} run, ${equivalent.length} equivalent, ${excluded.length} not built/compiled/stale) in ${seconds(started)} s`);
}

main().catch((error) => {
  undoMutant?.();
  console.error(`mutate: ${error.message}`);
  process.exit(1);
});
