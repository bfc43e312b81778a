// Two copies of the element on one page (issue 41): two versions of the npm package, or a site's own copy beside
// it. Each copy is a module graph of its own, so both run; the first defines <qkv-lesson>, and the second must say
// so once on the console, naming both versions, and must not download a second engine. Here the page loads two
// copies of dist-lib/ (`npm run build:lib`) from /a/ and /b/, the second marked as another version, and holds one
// <qkv-lesson>: exactly one console message, exactly one engine (.wasm) request, from /a/, and the lesson works.
//   node --test --test-concurrency=1 tests/browser/two-copies.test.mjs
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { assertNoProblems, csp, launchBrowser, openPage, readFixture, repo, tableTexts, waitLaidOut, waitReady } from './harness.mjs';

const distLib = resolve(repo, 'dist-lib');
let site;
let server;
let browser;
let firstVersion;
const secondVersion = '99.0.0-second-copy';

before(async () => {
  assert.ok(existsSync(join(distLib, 'qkv-lesson.js')), 'dist-lib/qkv-lesson.js is missing: run `npm run build:lib` first');
  ({ version: firstVersion } = JSON.parse(await readFile(resolve(repo, 'package.json'), 'utf8')));
  site = await mkdtemp(join(tmpdir(), 'qkv-two-copies-'));
  await cp(distLib, join(site, 'a'), { recursive: true });
  await cp(distLib, join(site, 'b'), { recursive: true });
  // The second copy as another version of the package would be: its entry names the version it was built from.
  const entry = join(site, 'b/qkv-lesson.js');
  const built = await readFile(entry, 'utf8');
  const declaration = `var version = ${JSON.stringify(firstVersion)};`;
  assert.equal(built.split(declaration).length, 2, `dist-lib/qkv-lesson.js declares the package's version once (${declaration})`);
  await writeFile(entry, built.replace(declaration, `var version = ${JSON.stringify(secondVersion)};`));
  await writeFile(join(site, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>');
  await writeFile(
    join(site, 'index.html'),
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Two copies</title><link rel="icon" href="/favicon.svg">\n' +
      '<script type="module" src="/a/qkv-lesson.js"></script>\n<script type="module" src="/b/qkv-lesson.js"></script></head>\n' +
      '<body><h1>Chapter 26</h1><qkv-lesson></qkv-lesson></body></html>\n',
  );
  server = await serve({ root: site, port: 0, csp });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (server) await new Promise((done) => server.close(() => done()));
  if (site) await rm(site, { recursive: true, force: true });
});

test('a second copy of the element says so once, downloads no engine, and the first copy’s lesson works', async () => {
  const fixture = await readFixture();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const { page, problems, requests, close } = await openPage(browser);
  const messages = [];
  page.on('console', (message) => messages.push({ type: message.type(), text: message.text() }));
  try {
    await page.goto(`${origin}/`);
    await waitReady(page);
    await waitLaidOut(page);
    assert.deepEqual(await tableTexts(page, 'query'), fixture.expected.query.values.map(String), 'Q as in fixtures/chapter26.json');
    // The self-score section's first result comes from its worker, which gets the page's compiled module: by then
    // every download the lesson starts on its own has been asked for.
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.shadowRoot?.querySelector('.self-score-results[data-shown]'), undefined, { timeout: 60000 });
    const paths = requests.map((url) => new URL(url).pathname);
    const engines = paths.filter((path) => /\/qkv(-simd)?-[\w-]{8}\.wasm$/.test(path));
    assert.equal(engines.length, 1, `one engine downloaded: ${engines.join(', ')}`);
    assert.match(engines[0], /^\/a\/assets\//, 'the engine of the copy in use');
    assert.deepEqual(paths.filter((path) => path.startsWith('/b/') && /\.(wasm|woff2)$|\/qkv(-simd)?-[\w-]{8}\.js$/.test(path)), [], 'nothing of the second copy’s engine or fonts');

    const expected =
      `<qkv-lesson>: this page loads the lesson’s element twice: version ${firstVersion} (${origin}/a/qkv-lesson.js) defined ` +
      `<qkv-lesson> first and is the one used; this copy, version ${secondVersion} (${origin}/b/qkv-lesson.js), is ignored and ` +
      'downloads no engine. Load one copy of the element.';
    assert.deepEqual(messages, [{ type: 'warning', text: expected }], 'exactly one console message, the second copy’s');
    const definedBy = await page.evaluate(() => customElements.get('qkv-lesson')[Symbol.for('qkv-lesson.defined-by')]);
    assert.deepEqual(definedBy, { version: firstVersion, script: `${origin}/a/qkv-lesson.js` }, 'the first copy defined the element');
    assertNoProblems(problems.filter((problem) => !problem.startsWith(`console.warning: ${expected}`)), 'two copies on one page');
  } finally {
    await close();
  }
});
