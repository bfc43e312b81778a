// The C++ sources are laid out as .clang-format says (clang-format 14, Debian 12's, installed by
// scripts/setup.sh): `clang-format -i <file>` fixes a file this test names. Hand-aligned lists (the field
// lists in api/lesson_api.hpp) sit between `// clang-format off` and `// clang-format on`.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { root } from './load.mjs';

const folders = ['cpp', 'tests/cpp', 'tests/fuzz', 'bench/micro'];

test('every C++ source under cpp/ and the C++ tests is clang-format clean', () => {
  const version = spawnSync('clang-format', ['--version'], { encoding: 'utf8' });
  assert.equal(version.status, 0, 'clang-format is not installed: scripts/setup.sh installs it (apt package clang-format)');
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...folders], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => /\.(cpp|hpp)$/.test(file));
  assert.ok(files.length > 50, `only ${files.length} C++ files found`);
  const result = spawnSync('clang-format', ['--dry-run', '--Werror', ...files], { cwd: root, encoding: 'utf8' });
  const unformatted = [...new Set([...result.stderr.matchAll(/^(\S+?):\d+:\d+: error:/gm)].map((m) => m[1]))];
  assert.equal(result.status, 0, `${version.stdout.trim()}: not formatted (clang-format -i them):\n  ${unformatted.join('\n  ')}`);
});
