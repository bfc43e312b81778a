// The score figure, S = Q Kᵀ (score-figure.ts): Kᵀ's columns on top, Q's rows on the left, the scores in the
// grid, coloured by the core's heat levels. On phones (320, 360 and 390 px wide) every score, label and the
// caption lie inside the figure's visible box (nothing scrolls sideways inside it); focusing a score marks its
// query row and key column in the same figure, both in the viewport. axe-core checks the figure in layout.test.mjs
// (at 390 px, light and dark, with every evidence fold open, this one included): one axe run per configuration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertNoProblems, openForAxe, readFixture, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();
const figure = 'qkv-lesson figure.score-product';

const openPhone = (width, colorScheme = 'light') => openForAxe(run.browser, run.server.url, { width, height: 740, colorScheme });

// Opens the scores' fold the way a learner does: by showing the best-key question's answer.
async function showScores(page) {
  await page.locator('qkv-lesson details[data-evidence-for="ch26-best-key"] > summary').click();
  await page.locator(figure).waitFor();
  await page.mouse.move(0, 0); // a keyboard learner's pointer rests away from the figure
}

// Every label, score and the caption of the figure: which of them stick out of the figure's scrolling box or
// out of the viewport's width, and whether the box scrolls sideways at all.
function outsideTheBox(page) {
  return page.locator(figure).evaluate((fig) => {
    const box = fig.querySelector('.score-scroller');
    const frame = box.getBoundingClientRect();
    const parts = [fig.querySelector('figcaption'), ...fig.querySelectorAll('th, td')];
    const outside = parts
      .filter((part) => {
        const r = part.getBoundingClientRect();
        const bounds = part.tagName === 'FIGCAPTION' ? fig.getBoundingClientRect() : frame;
        return r.left < bounds.left - 0.5 || r.right > bounds.right + 0.5 || r.left < 0 || r.right > innerWidth;
      })
      .map((part) => part.textContent.trim());
    return { outside, scrolls: box.scrollWidth > box.clientWidth, parts: parts.length };
  });
}

for (const width of [320, 360, 390]) {
  test(`${width} px: every score and label is inside the figure's visible box, and a focused score shows its query and key beside it`, async () => {
    const fixture = await readFixture();
    const { page, problems, close } = await openPhone(width);
    try {
      await showScores(page);
      const fit = await outsideTheBox(page);
      const [b, t] = fixture.expected.scores.shape;
      // The caption, per batch item a corner and T keys, per query a label and T scores.
      assert.equal(fit.parts, 1 + b * (1 + t + t * (1 + t)), 'the figure has its caption, labels and scores');
      assert.deepEqual(fit.outside, [], `nothing sticks out of the figure at ${width} px`);
      assert.equal(fit.scrolls, false, `the figure does not scroll sideways at ${width} px`);

      for (let index = 0; index < b * t * t; index++) {
        const [i, j] = [Math.floor(index / t) % t, index % t];
        await page.locator(`${figure} td[data-index="${index}"]`).focus();
        const marked = await page.locator(figure).evaluate((fig) => {
          const inView = (el) => {
            const r = el.getBoundingClientRect();
            return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
          };
          const show = (el) => el && { text: el.textContent.trim(), inView: inView(el) };
          return { query: [...fig.querySelectorAll('.query-source')].map(show), key: [...fig.querySelectorAll('.key-source')].map(show), score: show(fig.querySelector('td:focus')) };
        });
        const subscript = (n) => '₀₁₂₃₄₅₆₇₈₉'[n];
        assert.equal(marked.query.length, 1, `score ${index}: one query row is marked`);
        assert.equal(marked.key.length, 1, `score ${index}: one key column is marked`);
        assert.ok(marked.query[0].text.startsWith(`q${subscript(i)} `), `score ${index}: its query q${i} is marked (${marked.query[0].text})`);
        assert.ok(marked.key[0].text.startsWith(`k${subscript(j)} `), `score ${index}: its key k${j} is marked (${marked.key[0].text})`);
        assert.ok(marked.score.inView && marked.query[0].inView && marked.key[0].inView, `score ${index}, its query and its key are all in the viewport: ${JSON.stringify(marked)}`);
      }
      assertNoProblems(problems, `${width} px`);
    } finally {
      await close();
    }
  });
}

test('the figure names its tokens short, shows the fixture’s Q rows, Kᵀ columns and scores, and colours each score as the self-score tables do', async () => {
  const fixture = await readFixture();
  const { page, problems, close } = await openPhone(360, 'dark');
  try {
    await showScores(page);
    const shown = await page.locator(figure).evaluate((fig) => ({
      queries: [...fig.querySelectorAll('th.query-row')].map((th) => th.textContent.trim()),
      keys: [...fig.querySelectorAll('th.key-column')].map((th) => [th.querySelector('.token-label').textContent, [...th.querySelectorAll('.vector bdi')].map((v) => v.textContent)]),
      scores: [...fig.querySelectorAll('td')].map((td) => td.textContent),
      heat: [...fig.querySelectorAll('td')].map((td) => td.dataset.heat),
      filled: [...fig.querySelectorAll('td')].map((td) => getComputedStyle(td).backgroundColor),
    }));
    const { query, key, scores } = fixture.expected;
    assert.deepEqual(shown.queries, [`q₀ fresh [${query.values.slice(0, 2).join(', ')}]`, `q₁ bread [${query.values.slice(2, 4).join(', ')}]`], 'Q’s rows are the queries');
    assert.deepEqual(shown.keys, [['k₀ fresh', key.values.slice(0, 2).map(String)], ['k₁ bread', key.values.slice(2, 4).map(String)]], 'Kᵀ’s columns are the keys');
    assert.deepEqual(shown.scores, scores.values.map(String), 'the scores are the fixture’s');
    // The self-score tables' rule, applied here to the fixture: round(4 · score / the largest |score|).
    const largest = Math.max(...scores.values.map(Math.abs));
    assert.deepEqual(shown.heat, scores.values.map((s) => String(Math.round((4 * s) / largest) || 0)), 'each score’s colour level');
    assert.notEqual(shown.filled[1], shown.filled[0], 'a score of 6 is coloured, a score of 0 is not');
    assert.notEqual(shown.filled[3], shown.filled[1], 'negative and positive scores differ');
    assertNoProblems(problems, 'figure');
  } finally {
    await close();
  }
});
