// The npm package as a course site gets it: `npm run pack:npm` (scripts/pack-npm.mjs builds dist-lib/ with
// vite.lib.config.ts and packs it with the package's own README, web/lib/README.md), the tarball installed offline into a throwaway Vite app whose main.js is
// `import 'qkv-lesson'`, the app built by the repo's Vite and served under the harness's strict CSP (no
// data: URLs, no inline script) with Trusted Types required, then opened in Chromium: the element is ready, the diagram's Q is the
// fixture's, both workers run in workers with the .wasm files the site's build copied, the math fonts load,
// and nothing fails. Also the package's types: a consumer file type-checks against the installed tarball
// (through its exports map; the .d.ts is emitted from the source by scripts/build-lib-types.mjs). Every
// other bundler, and a server render, is tests/browser/bundlers.test.mjs.
// No network: npm runs offline with an empty cache of its own.
//   node --test tests/browser/npm-package.test.mjs
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { parseAst } from 'vite';
import { serve } from '../../scripts/serve.mjs';
import { assertNoProblems, csp, launchBrowser, openPage, readFixture, repo, tableTexts, waitLaidOut, waitReady } from './harness.mjs';

const run = promisify(execFile);
const bin = (name) => resolve(repo, 'node_modules/.bin', name);

let work;
let env;
let tarball;
let projectReadme; // the repository's README before packing
let app;
let fixture;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'qkv-npm-'));
  // Offline, with an npm cache of its own: installing the tarball must need nothing from a registry.
  env = { ...process.env, npm_config_offline: 'true', npm_config_cache: join(work, 'npm-cache'), npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  fixture = await readFixture();
  const packed = join(work, 'packed');
  await mkdir(packed);
  projectReadme = await readFile(resolve(repo, 'README.md'));
  const { stdout } = await run(process.execPath, ['scripts/pack-npm.mjs', '--pack-destination', packed], { cwd: repo, env, maxBuffer: 1 << 24 }).catch((error) => {
    throw new Error(`npm run pack:npm failed: ${error.stderr}`);
  });
  tarball = stdout.trim();

  app = join(work, 'site');
  await mkdir(join(app, 'public'), { recursive: true });
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'course-site', private: true, type: 'module' }));
  await writeFile(
    join(app, 'index.html'),
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>A course page</title><link rel="icon" href="favicon.svg"></head>\n' +
      '<body><h1>Chapter 26</h1><qkv-lesson></qkv-lesson><script type="module" src="./main.js"></script></body></html>\n',
  );
  // A course page's script: the import defines the element; the page listens to it as a course would.
  await writeFile(join(app, 'main.js'), "import 'qkv-lesson';\ndocument.addEventListener('qkv-lesson-ready', () => { document.body.dataset.lessonReady = ''; });\n");
  await writeFile(join(app, 'public/favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>');
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: app, env }).catch((error) => {
    throw new Error(`npm install of the tarball failed offline: ${error.stderr}`);
  });
});

after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

test('the tarball holds the built element, its workers, its types and every WebAssembly module, and no dependencies', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout.split('\n').filter(Boolean).map((path) => path.replace(/^package\//, ''));
  const rootFiles = ['package.json', 'README.md', 'LICENSE'];
  for (const file of [...rootFiles, 'dist-lib/qkv-lesson.js', 'dist-lib/qkv-lesson.d.ts', 'dist-lib/server.js', 'dist-lib/self-score-worker.js', 'dist-lib/scale-worker.js', 'dist-lib/THIRD_PARTY_NOTICES.md'])
    assert.ok(files.includes(file), `${file} is in the tarball`);
  assert.deepEqual(files.filter((file) => !file.startsWith('dist-lib/') && !rootFiles.includes(file)), [], 'nothing else of the repo');
  // Each module the C++ build writes (web/src/wasm/*.wasm) ships as a file of its own, never inlined.
  const modules = (await readdir(resolve(repo, 'web/src/wasm'))).filter((file) => file.endsWith('.wasm'));
  assert.ok(modules.length >= 4, 'the page core and the scale core, each with and without SIMD');
  for (const module of modules) {
    const name = basename(module, '.wasm');
    assert.equal(files.filter((file) => new RegExp(`^dist-lib/assets/${name}-[\\w-]{8}\\.wasm$`).test(file)).length, 1, `${module} once in dist-lib/assets/`);
  }
  assert.ok(files.some((file) => /^dist-lib\/assets\/KaTeX_Main-Regular-[\w-]+\.woff2$/.test(file)), 'the math fonts');

  const installed = JSON.parse(await readFile(join(app, 'node_modules/qkv-lesson/package.json'), 'utf8'));
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) assert.equal(installed[field], undefined, `no ${field}`);
  // A browser build gets the element; Node (a server render) the entry that defines nothing (bundlers.test.mjs).
  assert.deepEqual(installed.exports['.'], { types: './dist-lib/qkv-lesson.d.ts', browser: './dist-lib/qkv-lesson.js', node: './dist-lib/server.js', default: './dist-lib/qkv-lesson.js' });
  for (const field of ['scripts', 'devDependencies', 'private']) assert.equal(installed[field], undefined, `no ${field} (only the repository uses it)`);
  // The licence a registry and an author's licence checker read (issue 37, item 2): the one LICENSE holds.
  const licence = await readFile(join(app, 'node_modules/qkv-lesson/LICENSE'), 'utf8');
  assert.ok(installed.license, 'package.json names its licence');
  assert.equal(licence.split('\n')[0], `${installed.license} License`, 'package.json’s licence is the one LICENSE names');
});

// Every ESTree node of a module's code, depth first.
function* astNodes(value) {
  if (Array.isArray(value)) for (const item of value) yield* astNodes(item);
  else if (value && typeof value === 'object') {
    if ('type' in value) yield value;
    for (const field of Object.values(value)) if (field && typeof field === 'object') yield* astNodes(field);
  }
}
const isName = (node, name) => node?.type === 'Identifier' && node.name === name;
const isImportMetaUrl = (node) => node?.type === 'MemberExpression' && node.object.type === 'MetaProperty' && isName(node.object.meta, 'import') && isName(node.property, 'url');
// `new URL('<string>', import.meta.url)`: the literal string, or undefined for any other expression.
const literalUrl = (node) => (node?.type === 'NewExpression' && isName(node.callee, 'URL') && isImportMetaUrl(node.arguments[1]) && node.arguments[0].type === 'Literal' ? node.arguments[0].value : undefined);
// `new Worker(new URL('<string>', import.meta.url), { type: 'module' })`: the string, or undefined for any other form.
function literalWorker(node) {
  const [url, options] = node.arguments;
  const moduleType = options?.type === 'ObjectExpression' && options.properties.some((property) => isName(property.key, 'type') && property.value.value === 'module');
  return moduleType ? literalUrl(url) : undefined;
}

// What a site's bundler reads in the package (docs/npm.md): each worker as the literal form Vite, webpack 5 and
// Parcel build as a worker, and every new URL(…, import.meta.url) a literal (a computed one, as in Vite's preload
// helper, is a "Critical dependency" in webpack). The sources write the workers in the same form, so that
// neither build has to rewrite them (vite.lib.config.ts).
test('the package, like the source, starts each worker as new Worker(new URL(literal, import.meta.url), { type: "module" }), and names no computed URL', async () => {
  const folder = join(app, 'node_modules/qkv-lesson/dist-lib');
  const workers = [];
  for (const file of (await readdir(folder)).filter((name) => name.endsWith('.js'))) {
    const nodes = [...astNodes(parseAst(await readFile(join(folder, file), 'utf8')))];
    for (const node of nodes.filter((candidate) => candidate.type === 'NewExpression' && isName(candidate.callee, 'Worker'))) {
      assert.ok(literalWorker(node), `${file}: a worker started otherwise than new Worker(new URL(literal, import.meta.url), { type: 'module' })`);
      workers.push(literalWorker(node));
    }
    const computed = nodes.filter((node) => node.type === 'NewExpression' && isName(node.callee, 'URL') && isImportMetaUrl(node.arguments[1]) && literalUrl(node) === undefined);
    assert.deepEqual(computed.map((node) => node.arguments[0].type), [], `${file}: new URL(…, import.meta.url) with a computed URL`);
    assert.ok(!nodes.some((node) => isName(node, '__vitePreload')), `${file}: a binding named __vitePreload (a site's Vite declares its own in the module)`);
  }
  assert.deepEqual(workers.sort(), ['./scale-worker.js', './self-score-worker.js']);

  const sources = resolve(repo, 'web/src/lesson');
  const started = [];
  for (const file of ['self-score-runner.ts', 'scale-run.ts']) {
    const code = await readFile(join(sources, file), 'utf8');
    assert.ok(!code.includes('?worker'), `${file}: no ?worker import (Vite's own form, which other bundlers do not build)`);
    const call = /new Worker\(new URL\('(\.\/[\w-]+\.ts)', import\.meta\.url\), \{ type: 'module' \}\)/.exec(code);
    assert.ok(call, `${file} starts its worker in the literal form`);
    started.push(call[1]);
  }
  assert.deepEqual(started.sort(), ['./scale-worker.ts', './self-score-worker.ts']);
});

test('the tarball’s README is the package’s short one, and packing leaves the project’s README as it was', async () => {
  const shipped = await readFile(join(app, 'node_modules/qkv-lesson/README.md'), 'utf8');
  assert.equal(shipped, await readFile(resolve(repo, 'web/lib/README.md'), 'utf8'));
  // Its length is bounded once, in tests/node/readme.test.mjs (packageReadmeLimit).
  assert.ok((await readFile(resolve(repo, 'README.md'))).equals(projectReadme), 'the project README is unchanged by packing');
  // A plain `npm pack` at the root would ship the project README: its prepack stops it, saying what to run.
  const refused = await run('npm', ['pack', '--dry-run', '--loglevel', 'error'], { cwd: repo, env }).then(() => null, (error) => `${error.stderr}`);
  assert.match(refused ?? 'npm pack went ahead', /run `npm run pack:npm`/);
});

test('a Vite site built from the tarball shows the lesson under a strict CSP and Trusted Types, with its workers, WebAssembly and fonts', async () => {
  await run(bin('vite'), ['build', app, '--outDir', join(app, 'dist'), '--emptyOutDir', '--logLevel', 'warn'], { cwd: app, env }).catch((error) => {
    throw new Error(`vite build of the site failed: ${error.stderr}`);
  });
  // The harness's policy, and Trusted Types required: the workers' URLs, which the site's bundler writes, go
  // through the lesson's policy too.
  const server = await serve({ root: join(app, 'dist'), port: 0, csp: `${csp}; require-trusted-types-for 'script'; trusted-types qkv-lesson` });
  const browser = await launchBrowser();
  const workers = [];
  try {
    const { page, problems, requests, close } = await openPage(browser);
    page.on('worker', (worker) => workers.push(worker));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await waitReady(page);
    await waitLaidOut(page);
    assert.equal(await page.evaluate(() => document.body.dataset.lessonReady), '', 'qkv-lesson-ready reached the page’s listener');
    assert.equal(await page.evaluate(() => document.querySelector('qkv-lesson') instanceof customElements.get('qkv-lesson')), true, 'the element is defined');
    assert.deepEqual(await tableTexts(page, 'query'), fixture.expected.query.values.map(String), 'Q as in fixtures/chapter26.json');

    // The self-score section's first result comes from its worker (the site's build of dist-lib/self-score-worker.js)...
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.shadowRoot?.querySelector('.self-score-results[data-shown]'), undefined, { timeout: 30000 });
    // ...and the scale section's preset from the other, which loads the scale module through Emscripten's own new URL().
    const section = 'qkv-lesson section.scale';
    await page.locator(`${section} button[data-preset="lesson"]`).click();
    await page.locator(`${section}:not([data-busy]) .scale-results[data-shown="lesson"]`).waitFor({ timeout: 30000 });
    assert.match(await page.locator(`${section} .scale-results`).innerText(), new RegExp(`${fixture.expected.parameter_count} parameters in all`));
    // The scale worker fetches its module's .wasm itself; the self-score worker fetches none: the page hands it
    // the module it compiled (one download of the lesson's .wasm).
    for (const [name, module, fetchesIt] of [['self-score-worker', /\.wasm$/, false], ['scale-worker', /\/qkv-scale(-simd)?-[\w-]+\.wasm$/, true]]) {
      const worker = workers.find((candidate) => new URL(candidate.url()).pathname.startsWith(`/assets/${name}-`));
      assert.ok(worker, `${name} ran as a worker (workers: ${workers.map((candidate) => candidate.url()).join(', ') || 'none'})`);
      const fetched = await worker.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name));
      assert.equal(fetched.some((url) => module.test(url)), fetchesIt, `${name} ${fetchesIt ? 'fetched its .wasm itself' : 'fetched no .wasm'}: ${fetched.join(', ')}`);
    }

    await page.evaluate(() => document.fonts.ready);
    const fonts = await page.evaluate(() => [...document.fonts].filter((face) => face.family.startsWith('QkvLesson_') && face.status === 'loaded').length);
    assert.ok(fonts > 0, 'at least one KaTeX font loaded');
    assert.ok(requests.some((url) => /\/assets\/KaTeX_[\w-]+\.woff2$/.test(url)), 'the fonts come from the site’s own assets');
    assert.ok(requests.some((url) => /\/assets\/qkv(-simd)?-[\w-]+\.wasm$/.test(url)), 'the core from the site’s own assets');
    // Every face the lesson registers decodes, the small ones padded to Vite's inline limit included
    // (vite.lib.config.ts), and none came as a data: URL (the CSP would have refused it: a problem below).
    const faces = await page.evaluate(() =>
      Promise.all([...document.fonts].filter((face) => face.family.startsWith('QkvLesson_')).map((face) => face.load().then(() => face.status, (error) => `${face.family}: ${error}`))),
    );
    assert.equal(faces.length, 20, 'KaTeX’s 20 faces are registered');
    assert.deepEqual(faces.filter((status) => status !== 'loaded'), [], 'every face loads');
    assert.equal(requests.filter((url) => /\/assets\/KaTeX_Size\d-Regular-[\w-]+\.woff2$/.test(url)).length, 4, 'the four padded Size fonts came as files');
    assertNoProblems(problems, 'the site built from the tarball');
    await close();
  } finally {
    await browser.close();
    await new Promise((done) => server.close(done));
  }
});

test('the package’s types: a consumer type-checks against the tarball', async () => {
  await writeFile(
    join(app, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], strict: true, noEmit: true, types: [] }, include: ['check.ts'] }),
  );
  // Wrong uses are marked @ts-expect-error: each fails the check if the types were any or too loose.
  await writeFile(
    join(app, 'check.ts'),
    `import { QkvLessonElement, type AnswerStatement, type LessonProgress, type SectionName } from 'qkv-lesson';
import { prerenderedOpening, type PrerenderedOpening } from 'qkv-lesson/server';
const lesson: QkvLessonElement | null = document.querySelector('qkv-lesson');
if (lesson) {
  const sections: SectionName[] = lesson.sections;
  lesson.sections = ['diagram', 'exercises'];
  lesson.reveal = 'never';
  lesson.theme = 'dark';
  lesson.syncUrl = false;
  lesson.progressKey = 'course-1';
  const origin: string | null = lesson.parentOrigin;
  lesson.state = 'b=1&t=2&d=3&h=2';
  const saved: LessonProgress = lesson.progress;
  lesson.restoreProgress(saved);
  const ids: string[] = lesson.exerciseIds;
  lesson.addEventListener('qkv-lesson-answer', (event) => {
    const statement: AnswerStatement = event.detail;
    // Every statement comes through this event: a check's has a result, the lesson's own and a viewed one may not.
    const success: boolean | undefined = statement.result?.success;
    const kind: 'choice' | 'fill-in' | 'long-fill-in' | undefined = statement.object.definition.interactionType;
    const registration: string = statement.context.registration;
    void [success, kind, registration, lesson.outcome(0.8)?.passed, lesson.activityId];
  });
  document.addEventListener('qkv-lesson-progress', (event) => void event.detail.answers);
  // @ts-expect-error not a reveal value
  lesson.reveal = 'sometimes';
  // @ts-expect-error not a section
  lesson.sections = ['diagrams'];
  // @ts-expect-error the answer event's detail is a statement
  lesson.addEventListener('qkv-lesson-answer', (event) => void event.detail.nonsense);
  void [sections, origin, ids];
}
const made = document.createElement('qkv-lesson');
// @ts-expect-error theme is light, dark or auto
made.theme = 'blue';
// The server render's entry (docs/npm.md): markup and the attribute to set, from the sheet's URL only.
const opening: PrerenderedOpening = prerenderedOpening('/assets/opening.css');
const markup: string = opening.html;
const marked: '' = opening.attributes['data-prerendered'];
// @ts-expect-error the sheet's URL is a string
prerenderedOpening(new URL('https://example.org/opening.css'));
// @ts-expect-error the opening has no other fields
void opening.css;
export { made, markup, marked };
`,
  );
  const consumer = await run(bin('tsc'), ['-p', app]).then(
    () => null,
    (error) => `${error.stdout}${error.stderr}`,
  );
  assert.equal(consumer, null, `the consumer's type check failed:\n${consumer}`);
});
