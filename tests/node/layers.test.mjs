// The structure drawn from the imports (tools/layers.mjs): the tree as committed has no include that goes up
// or sideways and no circle; copies of it broken in one way each are refused, naming the break.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { root } from './load.mjs';

const checker = join(root, 'tools/layers.mjs');
const run = (tree) => spawnSync(process.execPath, [checker, ...(tree ? [tree] : [])], { encoding: 'utf8' });

test('the tree: every include goes down a floor, no circle, and the structure is printed bottom-up', () => {
  const result = run();
  assert.equal(result.status, 0, result.stdout + result.stderr);
  const lines = result.stdout.split('\n');
  // Bottom-up: the ground floor first, the front ends last; the shared response types below bench and scale.
  const at = (pattern) => lines.findIndex((line) => pattern.test(line));
  assert.ok(at(/^\s+1\s+support\s/) >= 0, result.stdout);
  assert.ok(at(/\bresponse\s+\[qkv_response\] -> support$/) > at(/^\s+1\s+support\s/), result.stdout);
  assert.ok(at(/^\s+\d+\s+cli\s/) > at(/\bapi\s+\[qkv_api\]/), result.stdout);
  assert.match(result.stdout, /\bbench\s+\[qkv_bench\] -> response, /);
  assert.match(result.stdout, /\bscale\s+\[qkv_wasm_scale\] -> bench, response, /);
  assert.doesNotMatch(result.stdout, /\b(bench|scale)\s+\[[^\]]+\] -> .*\bapi\b/);
  assert.match(result.stdout, /^\s+qkv_core_tests\s+tensor, autograd, nn, attention, support$/m);
  assert.match(result.stdout, /no include goes up or sideways, and no circle/);
});

// A copy of what the checker reads, with `breakIt` applied.
function brokenCopy(breakIt) {
  const tree = mkdtempSync(join(tmpdir(), 'qkv-layers-'));
  cpSync(join(root, 'cpp'), join(tree, 'cpp'), { recursive: true });
  cpSync(join(root, 'tests/cpp'), join(tree, 'tests/cpp'), { recursive: true });
  cpSync(join(root, 'web/src'), join(tree, 'web/src'), {
    recursive: true,
    filter: (path) => !path.includes(`${join('web', 'src', 'wasm')}`),
  });
  cpSync(join(root, 'CMakeLists.txt'), join(tree, 'CMakeLists.txt'));
  breakIt(tree);
  return tree;
}

const cases = [
  {
    name: 'an include that goes up (support including the lesson API)',
    breakIt: (tree) => appendFileSync(join(tree, 'cpp/support/result.hpp'), '\n#include "api/lesson_api.hpp"\n'),
    expected: /cpp\/support\/result\.hpp includes cpp\/api\/lesson_api\.hpp: up, from support \(floor 1\) to api/,
    alone: false, // it closes circles too (the API includes the support room), and those are reported as well
  },
  {
    name: 'an include sideways (the benchmark including the chapter)',
    breakIt: (tree) => appendFileSync(join(tree, 'cpp/bench/core_bench.hpp'), '\n#include "chapter26/chapter26.hpp"\n'),
    expected: /cpp\/bench\/core_bench\.hpp includes cpp\/chapter26\/chapter26\.hpp: sideways/,
  },
  {
    name: 'a circle in web/src',
    breakIt: (tree) => {
      writeFileSync(join(tree, 'web/src/lesson/circle-a.ts'), "import { b } from './circle-b';\nexport const a = b;\n");
      writeFileSync(join(tree, 'web/src/lesson/circle-b.ts'), "import type { a } from './circle-a';\nexport const b = 1;\n");
    },
    expected: /web\/src: a circle: web\/src\/lesson\/circle-a\.ts <-> web\/src\/lesson\/circle-b\.ts/,
  },
  {
    name: "a library's tests linking a library above it",
    breakIt: (tree) => {
      const path = join(tree, 'CMakeLists.txt');
      const text = readFileSync(path, 'utf8');
      writeFileSync(path, text.replace(/(\n\s*qkv_tests\(qkv_bench_tests)/, '\n  target_link_libraries(qkv_core_tests PRIVATE qkv_chapter26)$1'));
    },
    expected: /qkv_core_tests \(tests of qkv_core\) links qkv_chapter26, above its floor/,
  },
  {
    name: "a core test including the chapter's header",
    breakIt: (tree) => appendFileSync(join(tree, 'tests/cpp/qkv_test.cpp'), '\n#include "chapter26/projection_evidence.hpp"\n'),
    expected: /tests\/cpp\/qkv_test\.cpp \(in qkv_core_tests, tests of qkv_core\) includes cpp\/chapter26\/projection_evidence\.hpp, above its floor/,
  },
];

for (const { name, breakIt, expected, alone = true } of cases) {
  test(`a copy with ${name} is refused`, () => {
    const tree = brokenCopy(breakIt);
    try {
      const result = run(tree);
      assert.equal(result.status, 1, result.stdout + result.stderr);
      assert.match(result.stdout, expected);
      if (alone) assert.match(result.stdout, /\n1 problem:\n/);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
}
