#!/usr/bin/env node
// Mutation testing of cpp/ (not part of npm test or CI): applies the documented sample of realistic one-line
// mutants in tools/mutants.json, one at a time, to a private copy of the repository at HEAD, rebuilds only
// what each one touches, runs the whole ctest suite and records which test killed it.
//
//   npm run mutate                       every mutant (about 20 min at -j1 on an idle 2-core machine, an hour under load)
//   npm run mutate -- --only <id>[,<id>] some of them
//   npm run mutate -- --list             the sample, without running anything
//   options: --jobs N (ninja and ctest, default 1), --timeout S (per mutant, default 600),
//            --tree DIR (default /tmp/mutate-tree), --build DIR (default /tmp/mutate-build),
//            --exclude REGEX (tests left out, passed to ctest -E and printed with the results),
//            --ref COMMIT (the commit to mutate, default HEAD: e.g. one made with git commit-tree to try
//            tests before committing them)
//
// The working tree is never touched: the copy is a detached git worktree at HEAD (so commit a test before
// running this), built natively in Release. Files outside the native build (cpp/wasm, cpp/scale) are listed
// as "not built" and left out of the score, as are mutants that do not compile and the equivalent ones
// (marked in mutants.json with the reason).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sample = JSON.parse(readFileSync(join(repo, 'tools/mutants.json'), 'utf8'));

function parseArgs(argv) {
  const options = { jobs: 1, timeout: 600, tree: '/tmp/mutate-tree', build: '/tmp/mutate-build', only: null, list: false, exclude: '', ref: 'HEAD' };
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
    else throw new Error(`unknown option ${arg} (see the comment at the top of tools/mutate.mjs)`);
  }
  if (!(options.jobs >= 1) || !(options.timeout >= 1)) throw new Error('--jobs and --timeout must be positive integers');
  return options;
}

function run(command, args, { cwd = repo, timeout = 0 } = {}) {
  // Niced, in its own process group so that a timeout ends the whole tree (ctest and its tests).
  return new Promise((done) => {
    const child = spawn('nice', ['-n', '10', command, ...args], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = timeout > 0 ? setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
    }, timeout * 1000) : null;
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      done({ code, output, timedOut });
    });
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

function listSample() {
  for (const m of sample.mutants) {
    console.log(`${pad(m.id, 28)} ${pad(m.file, 38)} ${m.why}`);
    if (m.equivalent) console.log(`${pad('', 28)} equivalent: ${m.equivalent}`);
  }
  console.log(`${sample.mutants.length} mutants, ${sample.mutants.filter((m) => m.equivalent).length} marked equivalent`);
}

// The tests that failed, from ctest's summary ("  12 - Suite.Name (Failed)").
function failedTests(output) {
  const tail = output.split('The following tests FAILED:')[1] ?? '';
  return [...tail.matchAll(/^\s*\d+ - (\S+) \(([^)]+)\)/gm)].map((match) => `${match[1]} (${match[2]})`);
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

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.list) return listSample();
  let chosen = sample.mutants;
  if (options.only) {
    const unknown = options.only.filter((id) => !sample.mutants.some((m) => m.id === id));
    if (unknown.length) throw new Error(`no mutant named ${unknown.join(', ')} (npm run mutate -- --list)`);
    chosen = sample.mutants.filter((m) => options.only.includes(m.id));
  }
  const started = Date.now();
  const head = await prepare(options);
  console.log(`mutation run of ${head.slice(0, 7)} in ${options.tree}, build ${options.build}, -j${options.jobs}` +
    (options.exclude ? `, tests excluded: ${options.exclude}` : ', no test excluded'));

  const ninja = ['-C', options.build, `-j${options.jobs}`];
  const baseBuild = await run('ninja', ninja);
  if (baseBuild.code !== 0) throw new Error(`the unmutated tree does not build:\n${baseBuild.output.slice(-4000)}`);
  const baseStart = Date.now();
  const base = await run('ctest', ctestArgs(options), { timeout: options.timeout * 4 });
  if (base.code !== 0) throw new Error(`the unmutated tree fails its tests (${failedTests(base.output).join(', ')}); fix that first`);
  const testCount = (base.output.match(/out of (\d+)/) ?? [])[1] ?? '?';
  console.log(`unmutated: ${testCount} tests pass in ${seconds(baseStart)} s (setup ${seconds(started)} s)\n`);

  // Each source's object files (a source may be compiled into more than one target). They are kept before a
  // mutant is built and put back with the restored source, which gets its old time back, so the next build
  // need not recompile the original. The object keeps the mutant build's time (the one ninja's logs hold),
  // and every other output that build rewrote (archives, programs, test lists) is dated 1970, so ninja
  // rebuilds it from the unmutated objects. Were any of this wrong, ninja would only recompile: the
  // unmutated tree's tests run once more at the end to show that it is whole.
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
  const results = [];
  for (const m of chosen) {
    const t0 = Date.now();
    const path = join(options.tree, m.file);
    const original = existsSync(path) ? readFileSync(path, 'utf8') : '';
    const result = { ...m, status: '', detail: '' };
    results.push(result);
    const occurrences = count(original, m.original);
    if (occurrences !== 1) {
      result.status = 'stale';
      result.detail = `original text occurs ${occurrences} times in ${m.file} at HEAD`;
    } else if (!objects.has(path)) {
      result.status = 'not built';
      result.detail = 'not part of the native build (WebAssembly only)';
    } else {
      const kept = objects.get(path).filter((object) => existsSync(object)).map((object) => [object, `${object}.unmutated`]);
      for (const [object, copy] of kept) copyFileSync(object, copy);
      const sourceTime = statSync(path).mtime;
      const buildStart = Date.now();
      writeFileSync(path, original.replace(m.original, () => m.replacement));
      try {
        const build = await run('ninja', ninja);
        if (build.code !== 0) {
          result.status = 'not compiled';
          result.detail = (build.output.match(/error: .*/) ?? ['build failed'])[0].slice(0, 100);
        } else {
          // The mutated library's own test program first (ctest runs the core's tests before the others',
          // so a fault in the API would otherwise wait for them all), then, if it passes, the whole suite.
          const own = ownTests(m.file, options.build);
          const first = own && !options.exclude ? await run(join(options.build, own), ['--gtest_brief=1'], { cwd: options.build, timeout: options.timeout }) : null;
          const firstFailed = first ? [...first.output.matchAll(/^\[  FAILED  \] ([\w/.]+)/gm)].map((match) => `${match[1]} (Failed)`) : [];
          if (first && first.timedOut) {
            result.status = 'killed';
            result.detail = `${own} passed the limit of ${options.timeout} s`;
          } else if (first && first.code !== 0) {
            result.status = 'killed';
            result.detail = firstFailed[0] ?? `${own} exited with ${first.code ?? 'a signal'}`;
          } else {
            const tests = await run('ctest', ctestArgs(options), { timeout: options.timeout });
            const failed = failedTests(tests.output);
            if (tests.timedOut) {
              result.status = 'killed';
              result.detail = `the test run passed the limit of ${options.timeout} s`;
            } else if (tests.code !== 0) {
              result.status = 'killed';
              result.detail = failed[0] ?? 'ctest failed';
            } else {
              result.status = 'survived';
            }
          }
        }
      } finally {
        writeFileSync(path, original);
        utimesSync(path, sourceTime, sourceTime);
        const keptObjects = new Set(kept.map(([object]) => object));
        for (const [object, copy] of kept) {
          const built = existsSync(object) ? statSync(object).mtime : new Date();
          copyFileSync(copy, object);
          utimesSync(object, built, built);
        }
        for (const output of outputs) {
          if (keptObjects.has(output) || !existsSync(output) || statSync(output).mtimeMs < buildStart) continue;
          utimesSync(output, new Date(0), new Date(0));
        }
      }
    }
    result.seconds = Number(seconds(t0));
    console.log(`${pad(result.id, 28)} ${pad(result.status, 13)} ${pad(`${result.seconds} s`, 6)} ${result.detail}`);
  }
  const restored = await run('ninja', ninja);
  const whole = restored.code === 0 ? await run('ctest', ctestArgs(options), { timeout: options.timeout * 4 }) : restored;
  console.log(whole.code === 0 ? '\nunmutated tree restored: its tests pass again'
    : '\nWARNING: the restored tree does not build or pass its tests: the results above are not to be trusted');

  const scored = results.filter((r) => !r.equivalent && (r.status === 'killed' || r.status === 'survived'));
  const killed = scored.filter((r) => r.status === 'killed');
  const survivors = scored.filter((r) => r.status === 'survived');
  const equivalent = results.filter((r) => r.equivalent);
  const excluded = results.filter((r) => !r.equivalent && !['killed', 'survived'].includes(r.status));
  console.log(`\n${'mutant'.padEnd(28)} ${'file'.padEnd(38)} ${'result'.padEnd(13)} test that killed it / note`);
  for (const r of results) {
    const status = r.equivalent ? `${r.status} (eq.)` : r.status;
    console.log(`${pad(r.id, 28)} ${pad(r.file, 38)} ${pad(status, 13)} ${r.detail}`);
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
  console.error(`mutate: ${error.message}`);
  process.exit(1);
});
