// Functions a screen or two long (tools/function-length.mjs): no function in web/src or cpp/ over 120 lines; a
// copy of the tree with one 121-line function added is refused, naming it with file:line, and one of 120 lines
// passes. The C++ scanner's reading of constructs that could fool a brace counter is pinned on snippets.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { root } from './load.mjs';

const checker = join(root, 'tools/function-length.mjs');
const { cppFunctions, tsFunctions, LIMIT } = await import(checker);
const run = (tree) => spawnSync(process.execPath, [checker, ...(tree ? [tree] : [])], { encoding: 'utf8' });

test(`the tree: no function in web/src or cpp/ is over ${LIMIT} lines`, () => {
  const result = run();
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^\d+ functions measured \((\d+) in web\/src, (\d+) in cpp\/\)/);
  const [, web, cpp] = /\((\d+) in web\/src, (\d+) in cpp\/\)/.exec(result.stdout).map(Number);
  // Both halves were read (a scanner that found nothing would pass every limit).
  assert.ok(web > 300 && cpp > 300, result.stdout);
  assert.match(result.stdout, new RegExp(`no function over ${LIMIT} lines`));
});

// A body of `lines` lines in all, from its first line to its closing brace.
const body = (lines) => Array.from({ length: lines - 4 }, () => '  n += 1;').join('\n');
const tsFunction = (name, lines) => `export function ${name}(): number {\n  let n = 0;\n${body(lines)}\n  return n;\n}\n`;
const cppFunction = (name, lines) => `namespace qkv {\nint ${name}() {\n  int n = 0;\n${body(lines)}\n  return n;\n}\n}  // namespace qkv\n`;

// A copy of what the checker reads, with one file added.
function copyWith(path, text) {
  const tree = mkdtempSync(join(tmpdir(), 'qkv-function-length-'));
  cpSync(join(root, 'cpp'), join(tree, 'cpp'), { recursive: true });
  cpSync(join(root, 'web/src'), join(tree, 'web/src'), { recursive: true, filter: (p) => !p.includes(join('web', 'src', 'wasm')) });
  writeFileSync(join(tree, path), text);
  return tree;
}

const copies = [
  { language: 'TypeScript', path: 'web/src/lesson/too-long.ts', make: tsFunction, name: 'tooLong', line: 1 },
  { language: 'C++', path: 'cpp/support/too_long.cpp', make: cppFunction, name: 'too_long', line: 2 },
];
for (const { language, path, make, name, line } of copies) {
  test(`a copy with a ${LIMIT + 1}-line ${language} function is refused, naming it; ${LIMIT} lines pass`, () => {
    for (const [lines, status] of [
      [LIMIT + 1, 1],
      [LIMIT, 0],
    ]) {
      const tree = copyWith(path, make(name, lines));
      try {
        const result = run(tree);
        assert.equal(result.status, status, `${lines} lines: ${result.stdout}${result.stderr}`);
        if (status === 1) {
          assert.match(result.stdout, new RegExp(`\\n1 function over ${LIMIT} lines:\\n${path}:${line}: ${name} is ${lines} lines\\n`));
        } else {
          assert.match(result.stdout, new RegExp(`^\\s+${lines}\\s+${path}:${line} ${name}$`, 'm'), 'measured, and within the limit');
        }
      } finally {
        rmSync(tree, { recursive: true, force: true });
      }
    }
  });
}

test('TypeScript: arrow functions, methods and function expressions are measured by their own lines', () => {
  const text = [
    'export class Card {', //  1
    '  render(): void {', //   2
    '    const draw = () => {', // 3
    '      return 1;', //      4
    '    };', //               5
    '  }', //                  6
    '}', //                    7
    'const handlers = { open: function () {', // 8
    '  return 2;', //          9
    '} };', //                10
  ].join('\n');
  assert.deepEqual(
    tsFunctions('card.ts', text).map(({ name, line, lines }) => `${name}:${line}:${lines}`),
    ['render:2:5', 'draw:3:3', 'open:8:3'],
  );
});

test('C++: comments, strings, raw strings, initialisers and classes do not fool the brace scanner', () => {
  const text = [
    '#include <string>', //                                       1
    '#define OPEN {', //                                          2
    'namespace qkv {', //                                         3
    'namespace {', //                                             4
    'const int table[] = {1, 2, 3};', //                          5
    'struct Pair {', //                                           6
    '  int first{0};', //                                         7
    '  Pair(int a, int b) : first{a}, second_(b) {', //          8
    '    // a comment with a brace {', //                         9
    '  }', //                                                    10
    '  int sum() const noexcept { return first + second_; }', // 11
    '  int second_ = 0;', //                                     12
    '};', //                                                     13
    '}  // namespace', //                                        14
    'std::string text(char c = \'{\') {', //                    15
    '  const char* raw = R"x(}})x";', //                         16
    '  auto f = [](int x) { return x; };', //                    17
    '  return std::string(raw) + "}" + c;', //                   18
    '}', //                                                      19
    'enum class Kind { A, B };', //                              20
    'template <typename T>', //                                  21
    'auto twice(T x) -> T {', //                                 22
    '  return x + x;', //                                        23
    '}', //                                                      24
    'extern "C" void on_signal(int) {}', //                      25
    '}  // namespace qkv', //                                    26
  ].join('\n');
  assert.deepEqual(
    cppFunctions(text).map(({ name, line, lines }) => `${name}:${line}:${lines}`),
    ['Pair:8:3', 'sum:11:1', 'text:15:5', 'twice:21:4', 'on_signal:25:1'],
  );
});
