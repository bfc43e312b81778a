// A course page under Trusted Types (`require-trusted-types-for 'script'`): innerHTML and `new Worker()`
// refuse plain strings there. The lesson's only such sinks (the build's KaTeX markup, its workers' scripts)
// go through its "qkv-lesson" policy: it starts, typesets its formulas and runs both of its workers with
// no violation, also when the page lists the allowed policy names.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { assertNoProblems, csp, dist, launchBrowser, openPage, waitLaidOut, waitReady } from './harness.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

// Every CSP violation the page reports, Trusted Types' included, collected from the document.
// Also the page's own Worker constructor, which the lesson stands in for only while it starts a worker (trusted-types.ts).
const recordViolations = () => {
  window.__nativeWorker = Worker;
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (event) => window.__violations.push(`${event.violatedDirective}: ${event.blockedURI} ${event.sample}`));
};

async function lessonUnder(policy) {
  const server = await serve({ root: dist, port: 0, csp: policy });
  const opened = await openPage(browser);
  try {
    await opened.page.addInitScript(recordViolations);
    await opened.goto(`http://127.0.0.1:${server.address().port}/`);
    await waitReady(opened.page);
    await waitLaidOut(opened.page);
    // The self-score section's first result comes from its worker, a scale preset's from the other worker.
    await opened.page.locator('qkv-lesson section.self-score .self-score-results[data-shown]').waitFor({ state: 'attached', timeout: 30000 });
    await opened.page.locator('qkv-lesson section[data-section="scale"] button[data-preset="lesson"]').click();
    await opened.page.locator('qkv-lesson section[data-section="scale"]:not([data-busy]) .scale-results[data-shown="lesson"]').waitFor({ timeout: 60000 });
    const formulas = await opened.page.locator('qkv-lesson .katex').count();
    const violations = await opened.page.evaluate(() => window.__violations);
    const workerRestored = await opened.page.evaluate(() => Worker === window.__nativeWorker);
    return { ...opened, formulas, violations, workerRestored };
  } finally {
    await opened.close();
    await new Promise((done) => server.close(done));
  }
}

for (const [name, policy] of [
  ['require-trusted-types-for alone', `${csp}; require-trusted-types-for 'script'`],
  ['with the allowed policy names listed', `${csp}; require-trusted-types-for 'script'; trusted-types qkv-lesson`],
]) {
  test(`Trusted Types, ${name}: the lesson is ready, typeset and computing, with no violation`, async () => {
    const { formulas, violations, workerRestored, problems } = await lessonUnder(policy);
    assert.ok(formulas > 5, `the build's formulas are typeset (found ${formulas})`);
    assert.ok(workerRestored, 'the page’s Worker is its own again once both workers have started');
    assert.deepEqual(violations, []);
    assertNoProblems(problems, name);
  });
}

test('Trusted Types with a policy list that leaves out qkv-lesson: the lesson says so instead of loading for ever', async () => {
  const server = await serve({ root: dist, port: 0, csp: `${csp}; require-trusted-types-for 'script'; trusted-types course-page` });
  const { page, goto, close } = await openPage(browser);
  try {
    await goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.state === 'error', undefined, { timeout: 15000 });
    const shown = await page.locator('qkv-lesson [role="alert"]').innerText();
    assert.match(shown, /The lesson could not start on this page\./);
    assert.match(shown, /qkv-lesson/, `the reason names the refused policy: ${shown}`);
  } finally {
    await close();
    await new Promise((done) => server.close(done));
  }
});
