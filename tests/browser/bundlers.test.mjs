// The npm package in every bundler a course author uses (issue 37, item 3): the tarball is packed once
// (scripts/pack-npm.mjs) and installed offline into a folder of fresh sites, one per bundler, each built as the
// package's README says (web/lib/README.md) with the bundler from this project's node_modules (symlinked into the
// sites' node_modules, as a site's own install would put it). Each site is served under the strict CSP with
// Trusted Types (a Docusaurus page's policy adds the hash of its inline script, computed from the built HTML as an
// author would), some under a sub-path, and opened in one Chromium: the lesson is ready, the self-score section
// computes in its worker and the scale section in the other, and nothing fails (no console error or warning, no
// page error, no failed request). Also a server render: plain Node imports the package without a throw and
// without defining anything, and the Astro page writes the prerendered opening with qkv-lesson/server (issue 42). The sites are built in parallel while the browser opens the ones already built.
//   node --test --test-concurrency=1 tests/browser/bundlers.test.mjs
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { parseHTML } from 'linkedom';
import { serve } from '../../scripts/serve.mjs';
import { loadCore } from '../node/load.mjs';
import { importLesson } from '../node/typescript.mjs';
import { assertNoProblems, csp, holdRequests, launchBrowser, openPage, repo, waitReady } from './harness.mjs';

const run = promisify(execFile);
const bin = (name) => resolve(repo, 'node_modules/.bin', name);
// What the package's README asks a site to allow, plus the bundler's own Trusted Types policy where it has one.
const policy = (...bundlerPolicies) => `${csp}; require-trusted-types-for 'script'; trusted-types qkv-lesson ${bundlerPolicies.join(' ')}`.trim();
const favicon = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>';
const page = (script) =>
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>A course page</title><link rel="icon" href="favicon.svg"></head>\n' +
  `<body><h1>Chapter 26</h1><qkv-lesson></qkv-lesson><script type="module" src="${script}"></script></body></html>\n`;
const courseScript = "import 'qkv-lesson';\n";

// The recipe of docs/npm.md: Docusaurus's font rule leaves the package's fonts to webpack (or they arrive as
// JavaScript), and webpack's chunk loader gets a Trusted Types policy.
const docusaurusConfig = `module.exports = {
  title: 'A course',
  url: 'http://127.0.0.1',
  baseUrl: '/course/unit-3/',
  favicon: 'favicon.svg',
  plugins: ['@docusaurus/plugin-content-pages', () => ({
    name: 'qkv-lesson',
    configureWebpack(config) {
      for (const rule of config.module.rules)
        if (String(rule.test).includes('woff2')) rule.exclude = /node_modules[\\\\/]qkv-lesson/;
      return { output: { trustedTypes: 'webpack' } };
    },
  })],
};
`;

let work;
let sites;
let env;
let browser;
const built = {}; // bundler -> promise of its site's output folder
const buildSeconds = {}; // bundler -> its build's wall time, shown by its test (the builds run side by side)

// Runs a build step; a failure shows its output.
async function step(what, file, args, options) {
  try {
    return await run(file, args, { env, maxBuffer: 1 << 24, ...options });
  } catch (error) {
    throw new Error(`${what} failed:\n${error.stdout}${error.stderr}`);
  }
}

async function writeFiles(folder, files) {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(folder, name, '..'), { recursive: true });
    await writeFile(join(folder, name), text);
  }
}

// The package's files beside a bundle whose bundler leaves `new URL(…, import.meta.url)` as it is (README).
const copyPackageFiles = (dist) => cp(join(sites, 'node_modules/qkv-lesson/dist-lib'), dist, { recursive: true });

// One site per bundler: its sources, its build, and the page beside the output. Each resolves to the output folder.
const builders = {
  async vite(site) {
    await writeFiles(site, { 'index.html': page('./main.js'), 'main.js': courseScript, 'public/favicon.svg': favicon });
    await step('vite build', bin('vite'), ['build', site, '--outDir', join(site, 'dist'), '--emptyOutDir', '--logLevel', 'warn'], { cwd: site });
    return join(site, 'dist');
  },
  async webpack(site) {
    await writeFiles(site, {
      'src/main.js': courseScript,
      // The README's recipe: webpack's chunk loader under Trusted Types needs a policy of its own.
      'webpack.config.mjs': `export default { mode: 'production', context: import.meta.dirname, entry: './src/main.js', output: { path: import.meta.dirname + '/dist', filename: 'main.js', clean: true, trustedTypes: 'webpack' } };\n`,
      // What the webpack CLI does, without the CLI: any warning (a "Critical dependency") fails the build here, but
      // for production mode's size hint about the engine's .wasm files alone (over 244 KiB uncompressed; the
      // lesson's download budget is the compressed size, docs/npm.md), which is said, not failed.
      'build.mjs': `import webpack from 'webpack';\nimport config from './webpack.config.mjs';\nconst listed = (w) => [...w.message.matchAll(/^\\s+(\\S+) \\(/gm)].map(([, asset]) => asset);\nconst sizeHintOnWasm = (w) => w.name === 'AssetsOverSizeLimitWarning' && listed(w).length > 0 && listed(w).every((asset) => asset.endsWith('.wasm'));\nwebpack(config, (error, stats) => {\n  if (error) throw error;\n  const warnings = stats.compilation.warnings.filter((w) => !sizeHintOnWasm(w));\n  for (const w of stats.compilation.warnings) if (sizeHintOnWasm(w)) console.log('size hint: ' + w.message.split('\\n').join(' '));\n  if (stats.hasErrors() || warnings.length > 0) { console.error(stats.toString('errors-warnings')); process.exit(1); }\n});\n`,
    });
    await step('webpack', process.execPath, ['build.mjs'], { cwd: site });
    await writeFiles(join(site, 'dist'), { 'index.html': page('./main.js'), 'favicon.svg': favicon });
    return join(site, 'dist');
  },
  async esbuild(site) {
    await writeFiles(site, { 'main.js': courseScript });
    await step('esbuild', bin('esbuild'), ['main.js', '--bundle', '--format=esm', '--outdir=dist', '--log-level=warning'], { cwd: site });
    await copyPackageFiles(join(site, 'dist'));
    await writeFiles(join(site, 'dist'), { 'index.html': page('./main.js'), 'favicon.svg': favicon });
    return join(site, 'dist');
  },
  async rollup(site) {
    await writeFiles(site, {
      'main.js': courseScript,
      'rollup.config.mjs': `import { nodeResolve } from '@rollup/plugin-node-resolve';\nexport default { input: 'main.js', output: { dir: 'dist', format: 'es' }, plugins: [nodeResolve({ browser: true })] };\n`,
    });
    await step('rollup', bin('rollup'), ['-c', '--silent'], { cwd: site });
    await copyPackageFiles(join(site, 'dist'));
    await writeFiles(join(site, 'dist'), { 'index.html': page('./main.js'), 'favicon.svg': favicon });
    return join(site, 'dist');
  },
  // The import in the page's frontmatter runs on the server at build time; the one in its <script> in the browser.
  // The frontmatter also writes the prerendered opening into the element (qkv-lesson/server, docs/npm.md), linking
  // the package's opening sheet at the URL Astro's Vite gives it.
  async astro(site) {
    await writeFiles(site, {
      // Astro 5's Vite (6) builds workers as classic scripts by default, which cannot split (README).
      'astro.config.mjs': "export default { vite: { worker: { format: 'es' } } };\n",
      'public/favicon.svg': favicon,
      'src/pages/index.astro':
        "---\nimport 'qkv-lesson';\nimport { prerenderedOpening } from 'qkv-lesson/server';\nimport openingSheet from 'qkv-lesson/opening.css?url';\n" +
        'const opening = prerenderedOpening(openingSheet);\n---\n' +
        '<html lang="en"><head><meta charset="utf-8"><title>A course page</title><link rel="icon" href="/favicon.svg"></head>\n' +
        "<body><h1>Chapter 26</h1><qkv-lesson {...opening.attributes} set:html={opening.html}></qkv-lesson><script>import 'qkv-lesson';</script></body></html>\n",
    });
    await step('astro build', bin('astro'), ['build', '--root', site, '--silent'], { cwd: site, env: { ...env, ASTRO_TELEMETRY_DISABLED: '1' } });
    return join(site, 'dist');
  },
  // Docusaurus with its pages plugin alone; the import at the top of the page runs in its server render too.
  async docusaurus(site) {
    await writeFiles(site, {
      // Without "type": "module" (the sites' folder has it): Docusaurus 3.10's server render fails under it.
      'package.json': JSON.stringify({ name: 'a-docusaurus-course', private: true }),
      'docusaurus.config.js': docusaurusConfig,
      'src/pages/index.js':
        "import 'qkv-lesson';\nimport React from 'react';\n\n" +
        'export default function Chapter() {\n  return <main><h1>Chapter 26</h1><qkv-lesson></qkv-lesson></main>;\n}\n',
      'static/favicon.svg': favicon,
    });
    await step('docusaurus build', bin('docusaurus'), ['build', site, '--out-dir', join(site, 'build')], { cwd: site, env: { ...env, NO_UPDATE_NOTIFIER: '1' } });
    return join(site, 'build');
  },
};

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'qkv-bundlers-'));
  // Offline, with an npm cache of its own: installing the tarball must need nothing from a registry.
  env = { ...process.env, npm_config_offline: 'true', npm_config_cache: join(work, 'npm-cache'), npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  const opening = launchBrowser();
  const { stdout } = await step('npm run pack:npm', process.execPath, [resolve(repo, 'scripts/pack-npm.mjs'), '--pack-destination', work], { cwd: repo });
  sites = join(work, 'sites');
  await writeFiles(sites, { 'package.json': JSON.stringify({ name: 'course-sites', private: true, type: 'module' }) });
  await step('npm install of the tarball (offline)', 'npm', ['install', '--offline', '--no-audit', '--no-fund', stdout.trim()], { cwd: sites });
  // The bundlers, as the sites' own install would have them.
  for (const name of ['astro', 'webpack', '@rollup/plugin-node-resolve', '@docusaurus/core', '@docusaurus/plugin-content-pages', 'react', 'react-dom', '@mdx-js/react']) {
    await mkdir(join(sites, 'node_modules', name, '..'), { recursive: true });
    await symlink(resolve(repo, 'node_modules', name), join(sites, 'node_modules', name), 'dir');
  }
  for (const [name, build] of Object.entries(builders)) {
    const start = performance.now();
    built[name] = build(join(sites, name)).then((dist) => {
      buildSeconds[name] = ((performance.now() - start) / 1000).toFixed(1);
      return dist;
    });
    built[name].catch(() => undefined); // reported by the test that awaits it
  }
  browser = await opening;
});

after(async () => {
  await Promise.allSettled(Object.values(built));
  await browser?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

// Serves `dist` at `base` under the strict policy and checks what a learner gets there.
async function assertLessonWorks(dist, { base = '/', trustedTypes = policy() } = {}) {
  const server = await serve({ root: dist, port: 0, base, csp: trustedTypes });
  const { page: tab, problems, close } = await openPage(browser);
  const workers = [];
  tab.on('worker', (worker) => workers.push(worker));
  try {
    await tab.goto(`http://127.0.0.1:${server.address().port}${base}`);
    await waitReady(tab, 30000);
    // The self-score section's first result, computed in its worker...
    const selfScore = tab.locator('qkv-lesson .self-score-results[data-shown]').first();
    await selfScore.waitFor({ timeout: 30000 });
    assert.equal(await selfScore.getAttribute('data-ran-in'), 'worker', 'the self-score section computed in its worker');
    assert.equal(workers.length, 1, 'one worker (the self-score section’s) before a preset is chosen');
    // ...and a scale preset, in the other worker, which fetches the scale module's .wasm itself.
    const section = 'qkv-lesson section.scale';
    await tab.locator(`${section} button[data-preset="lesson"]`).click();
    await tab.locator(`${section}:not([data-busy]) .scale-results[data-shown="lesson"]`).waitFor({ timeout: 30000 });
    assert.equal(workers.length, 2, 'the scale section started its own worker');
    const fetched = await workers[1].evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name));
    assert.ok(fetched.some((url) => url.endsWith('.wasm')), `the scale worker fetched its .wasm: ${fetched.join(', ')}`);
    assertNoProblems(problems, `the ${dist} site at ${base}`);
  } finally {
    await close();
    await new Promise((done) => server.close(done));
  }
}

// The opening question and the tables of the prerendered opening (opening.ts), as the core computes them in Node.
const openingQuestionId = 'ch26-first-token';
const openingQuestion = `qkv-lesson form[data-exercise="${openingQuestionId}"]`;
const openingTensors = ['input', 'query_weight', 'key_weight', 'value_weight'];
async function coreOpening() {
  const { LessonController } = await importLesson('controller');
  const controller = new LessonController(await loadCore());
  return { fixture: controller.fixtureEvidence, question: controller.exercises().find((view) => view.id === openingQuestionId) };
}

// A node's text with each symbol's name as typed (dom.ts writes W_Q as MathML, whose text is its letters).
function typedText(node) {
  for (const name of node.querySelectorAll('math[data-name]')) name.replaceWith(node.ownerDocument.createTextNode(name.getAttribute('data-name')));
  return node.textContent.replace(/\s+/g, ' ').trim();
}

// The page's text in the opening's worked section and intro, and the cells of X and the weights, as shown now.
function shownOpening(page) {
  return page.locator('qkv-lesson').evaluate((lesson, tensors) => {
    const root = lesson.shadowRoot;
    const text = (selector) => root.querySelector(selector)?.textContent.replace(/\s+/g, ' ').trim();
    const cells = (key) => [...root.querySelectorAll(`table[data-fixture-tensor="${key}"] tbody td:not(.empty)`)].map((cell) => cell.textContent.trim());
    return { worked: text('section[aria-labelledby="qkv-worked-title"]'), intro: text('header.intro'), cells: Object.fromEntries(tensors.map((key) => [key, cells(key)])) };
  }, openingTensors);
}

// The Astro page's server render (qkv-lesson/server): its HTML, before any script, holds the opening with the core's
// numbers in a declarative shadow root whose sheet is served; in Chromium, under the strict policy with Trusted
// Types, an answer typed before the lesson's script has run is still there at ready, and the element then shows
// what the server wrote.
async function assertServerRenderedOpening(dist) {
  const core = await coreOpening();
  const server = await serve({ root: dist, port: 0, csp: policy() });
  const url = `http://127.0.0.1:${server.address().port}/`;
  const opened = await openPage(browser);
  const { page } = opened;
  try {
    const { document } = parseHTML(await (await fetch(url)).text());
    const template = document.querySelector('qkv-lesson[data-prerendered] > template[shadowrootmode="open"]');
    assert.ok(template, 'the server wrote a declarative shadow root into <qkv-lesson data-prerendered>');
    for (const key of openingTensors) {
      const cells = [...template.content.querySelectorAll(`table[data-fixture-tensor="${key}"] tbody td`)].filter((cell) => !cell.classList.contains('empty'));
      assert.deepEqual(cells.map((cell) => cell.textContent.trim()), core.fixture[key].text, `${key}'s cells in the served HTML are the core's`);
    }
    const form = template.content.querySelector(`form[data-exercise="${openingQuestionId}"]`);
    assert.ok(form, 'the opening question in the served HTML');
    assert.equal(typedText(form.querySelector('.question-text')), core.question.question.replace(/\s+/g, ' ').trim(), 'the question is the core’s');
    const sheet = await fetch(new URL(template.content.querySelector('link[rel="stylesheet"]').getAttribute('href'), url));
    assert.equal(sheet.status, 200, 'the opening’s sheet is served');
    assert.match(sheet.headers.get('content-type'), /^text\/css/);

    // The page's scripts (Astro's, under /_astro/) held back: the learner types into the server's opening first.
    const releaseScripts = await holdRequests(page, /\/_astro\/[^/]*\.js$/);
    await opened.goto(url, { waitUntil: 'commit' });
    const field = page.locator(`${openingQuestion} input`).first();
    await field.waitFor();
    assert.equal(await page.evaluate(() => customElements.get('qkv-lesson') === undefined), true, 'the lesson’s script is held back');
    const before = await shownOpening(page);
    await field.fill('0, 3');
    await field.evaluate((input) => (input.serverRendered = true)); // the server's node, known again after ready
    releaseScripts();
    await waitReady(page, 30000);
    const shownField = page.locator(`${openingQuestion} input`).first();
    assert.equal(await shownField.inputValue(), '0, 3', 'what was typed before ready is kept');
    assert.equal(await shownField.evaluate((input) => input.serverRendered), true, 'the element adopted the server’s field (docs/element.md)');
    const ready = await shownOpening(page);
    assert.deepEqual(ready, before, 'the element shows, at ready, what the server rendered');
    assert.deepEqual(ready.cells, Object.fromEntries(openingTensors.map((key) => [key, core.fixture[key].text])), 'the cells on screen are the core’s');
    assertNoProblems(opened.problems, 'the Astro page’s server-rendered opening');
  } finally {
    await opened.close();
    await new Promise((done) => server.close(done));
  }
}

// What an author does for a Docusaurus site (docs/npm.md): the hash of each inline script its build wrote into the
// page joins script-src (the harness's csp ends with script-src). With the pages plugin alone no style is inline.
async function docusaurusPolicy(dist) {
  const { document } = parseHTML(await readFile(join(dist, 'index.html'), 'utf8'));
  const hashes = [...document.querySelectorAll('script:not([src])')].map((script) => `'sha256-${createHash('sha256').update(script.textContent).digest('base64')}'`);
  return policy('webpack').replace(csp, `${csp} ${hashes.join(' ')}`);
}

// Awaits a bundler's site and notes its build time in the test's output.
async function site(t, name) {
  const dist = await built[name];
  t.diagnostic(`${name}: built in ${buildSeconds[name]} s`);
  return dist;
}

test('Vite: a site built with no configuration shows the lesson, both workers run', async (t) => {
  await assertLessonWorks(await site(t, 'vite'));
});

test('webpack 5: no warning at build, and the lesson works under a sub-path with webpack’s own policy', async (t) => {
  await assertLessonWorks(await site(t, 'webpack'), { base: '/course/unit-3/', trustedTypes: policy('webpack') });
});

test('esbuild: the bundle and the package’s files work at a site’s root and under a sub-path', async (t) => {
  const dist = await site(t, 'esbuild');
  await assertLessonWorks(dist);
  await assertLessonWorks(dist, { base: '/course/unit-3/' });
});

test('Rollup (with @rollup/plugin-node-resolve): the lesson works under a sub-path', async (t) => {
  await assertLessonWorks(await site(t, 'rollup'), { base: '/course/unit-3/' });
});

test('Astro: an import in the frontmatter does not break the build, the one in a script shows the lesson; the server-rendered opening is the core’s and keeps what was typed before ready', async (t) => {
  const dist = await site(t, 'astro');
  await assertLessonWorks(dist);
  await assertServerRenderedOpening(dist);
});

test('Docusaurus (the pages plugin alone): the page’s import survives its server render, the lesson works under its baseUrl', async (t) => {
  const dist = await site(t, 'docusaurus');
  await assertLessonWorks(dist, { base: '/course/unit-3/', trustedTypes: await docusaurusPolicy(dist) });
});

test('a server render: plain Node imports the package without a throw and defines nothing', async () => {
  const probe = `
    const before = new Set(Reflect.ownKeys(globalThis));
    const lesson = await import('qkv-lesson');
    const added = Reflect.ownKeys(globalThis).filter((key) => !before.has(key)).map(String);
    console.log(JSON.stringify({ added, exports: Object.entries(lesson).map(([name, value]) => [name, typeof value]), customElements: typeof customElements }));
  `;
  const { stdout } = await step('node importing qkv-lesson', process.execPath, ['--input-type=module', '-e', probe], { cwd: sites });
  assert.deepEqual(JSON.parse(stdout), { added: [], exports: [['QkvLessonElement', 'undefined']], customElements: 'undefined' });
});

// qkv-lesson/server in plain Node: a string join, with the URL escaped as an attribute's text, and a TypeError that
// names what it got for anything but a non-empty string.
test('a server render: qkv-lesson/server returns the opening with the sheet’s URL escaped, and refuses a URL that is not a string', async () => {
  const probe = `
    const { prerenderedOpening } = await import('qkv-lesson/server');
    const opening = prerenderedOpening('/course/opening.css?a=1&b="2"');
    const refused = [undefined, '', ' ', new URL('http://127.0.0.1/opening.css'), 42].map((url) => {
      try { prerenderedOpening(url); return 'accepted'; } catch (error) { return [error.constructor.name, error.message]; }
    });
    console.log(JSON.stringify({ link: opening.html.match(/<link [^>]*>/)?.[0], starts: opening.html.slice(0, 32), attributes: opening.attributes, customElements: typeof customElements, refused }));
  `;
  const { stdout } = await step('node importing qkv-lesson/server', process.execPath, ['--input-type=module', '-e', probe], { cwd: sites });
  const { link, starts, attributes, customElements, refused } = JSON.parse(stdout);
  assert.equal(link, '<link rel="stylesheet" crossorigin href="/course/opening.css?a=1&amp;b=&quot;2&quot;" />');
  assert.equal(starts, '<template shadowrootmode="open">');
  assert.deepEqual(attributes, { 'data-prerendered': '' });
  assert.equal(customElements, 'undefined');
  const said = (got) => ['TypeError', `qkv-lesson/server: prerenderedOpening(stylesheetUrl) takes the URL where your site serves qkv-lesson/opening.css, as a non-empty string; got ${got}`];
  assert.deepEqual(refused, [said('undefined'), said('the string ""'), said('the string " "'), said('a URL object (pass its .href)'), said('number 42')]);
});
