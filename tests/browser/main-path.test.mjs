// A shorter main path (issue 38, item 5): the main path is everything a learner meets before the "Going deeper
// (optional)" heading on the standalone page, at 360 × 740 with every fold open. Its reading time (words at 200 a
// minute, plus a minute per question) is at most 25 minutes and its height at most 24 screens; it uses no
// reverse-mode word; and the scale section comes after the Going deeper heading. The numbers are printed.
//   node --test --test-concurrency=1 tests/browser/main-path.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, openEvidence, openLesson, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();
const screen = { width: 360, height: 740 };
const wordsPerMinute = 200;
const minutesPerQuestion = 1;
const limits = { minutes: 25, screens: 24 };
// Words of the backward pass, which the optional part explains; the main path has none of them.
const reverseModeWords = /backward|backprop|gradient|upstream|reverse[- ]mode|dL\/d|X̄|U_Q|U_K|U_V/i;

// In the page: what the learner meets before the Going deeper heading (the page's own header and the lesson's),
// as visible text, its height on the page, and the questions in it; and where the scale section is.
function measureMainPath() {
  const root = document.querySelector('qkv-lesson').shadowRoot;
  const deeperHeading = root.getElementById('going-deeper');
  const before = (node) => node.compareDocumentPosition(deeperHeading) & Node.DOCUMENT_POSITION_FOLLOWING;
  const texts = [];
  const names = new Set();
  for (const container of [document.body, root]) {
    const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      // A symbol's name in prose (MathML: W sub Q) is one word, as its typed form W_Q was.
      const name = parent?.closest('math[data-name]');
      if (name) {
        if (!names.has(name) && name.checkVisibility() && (container !== root || before(name))) texts.push(name.dataset.name);
        names.add(name);
        continue;
      }
      // KaTeX writes each formula twice: once as MathML for assistive technology (visually clipped), once to be seen;
      // .visually-hidden text (table captions shown above their box, "(row maximum)" beside ▲) is heard, not read.
      if (!parent || parent.closest('.katex-mathml, .visually-hidden, script, style, noscript') || !parent.checkVisibility({ visibilityProperty: true })) continue;
      if (container === root && !before(node)) continue;
      texts.push(node.data);
    }
  }
  const text = texts.join(' ');
  const words = text.split(/\s+/).filter((token) => /[\p{L}\p{N}]/u.test(token)).length;
  const questions = [...root.querySelectorAll('form[data-exercise]')].filter((form) => form.checkVisibility() && before(form)).length;
  const headingTop = deeperHeading.getBoundingClientRect().top + scrollY;
  const scale = root.querySelector('section.scale');
  return {
    text,
    words,
    questions,
    height: Math.round(headingTop),
    closedFolds: [...root.querySelectorAll('details:not([open])')].filter((fold) => fold.checkVisibility() && before(fold)).length,
    scaleAfterHeading: Boolean(deeperHeading.compareDocumentPosition(scale) & Node.DOCUMENT_POSITION_FOLLOWING) && scale.getBoundingClientRect().top + scrollY > headingTop,
    scaleShown: scale.checkVisibility(),
  };
}

// Opens the lesson at 360 × 740 with every fold on the main path open, as a learner does, and measures it.
async function walkMainPath() {
  const opened = await openLesson(run.browser, run.server.url, screen);
  const { page } = opened;
  // Measured once everything the main path shows is on the page: the experiment's tables (its worker's answer) and
  // the checks the page runs when idle, so the count does not depend on how busy the machine is.
  await page.waitForFunction(() => {
    const root = document.querySelector('qkv-lesson').shadowRoot;
    return root.querySelector('.checks-pending') === null && root.querySelector('.self-score-results[data-shown]') !== null;
  });
  await openEvidence(page);
  // The other folds on the main path (further reading, the challenge's model answer), opened as a learner does.
  const otherFolds = await page.evaluate(() => {
    const root = document.querySelector('qkv-lesson').shadowRoot;
    const deeperHeading = root.getElementById('going-deeper');
    const folds = [...root.querySelectorAll('details:not([open])')].filter((fold) => fold.checkVisibility() && fold.compareDocumentPosition(deeperHeading) & Node.DOCUMENT_POSITION_FOLLOWING);
    folds.forEach((fold, i) => (fold.dataset.mainPathFold = String(i)));
    return folds.length;
  });
  for (let i = 0; i < otherFolds; i++) await page.locator(`qkv-lesson details[data-main-path-fold="${i}"] > summary`).click();
  const path = await page.evaluate(measureMainPath);
  const minutes = path.words / wordsPerMinute + path.questions * minutesPerQuestion;
  const screens = Math.ceil(path.height / screen.height);
  console.log(`main path at ${screen.width} × ${screen.height}: ${path.words} words and ${path.questions} questions, ${minutes.toFixed(1)} minutes; ${path.height} px, ${screens} screens`);
  return { ...opened, path, minutes, screens };
}

test('the main path at 360 × 740, everything unfolded: no reverse-mode word; the scale section after the Going deeper heading', async () => {
  const { path, problems, close } = await walkMainPath();
  try {
    assert.equal(path.closedFolds, 0, 'every fold on the main path is open');
    assert.ok(path.scaleShown, 'the scale section is shown on the standalone page');
    assert.ok(path.scaleAfterHeading, 'the scale section comes after the “Going deeper” heading');
    const reverse = path.text.match(new RegExp(`.{0,60}${reverseModeWords.source}.{0,60}`, 'iu'));
    assert.equal(reverse, null, `a reverse-mode word on the main path: “${reverse?.[0]}”`);
    assertNoProblems(problems, 'the main path');
  } finally {
    await close();
  }
});

test('the main path at 360 × 740, everything unfolded: at most 25 minutes of reading and 24 screens', async () => {
  const { path, minutes, screens, close } = await walkMainPath();
  try {
    assert.ok(minutes <= limits.minutes, `the main path takes ${minutes.toFixed(1)} minutes (${path.words} words, ${path.questions} questions), over ${limits.minutes}`);
    assert.ok(screens <= limits.screens, `the main path is ${screens} screens (${path.height} px) at 360 × 740, over ${limits.screens}`);
  } finally {
    await close();
  }
});
