// What a learner needs, in Chromium, Firefox ESR and WebKitGTK (issue 19, items 1 and 2): ready, grading with
// hints, an edit and its numbers, provenance, the self-score worker and a search, the smallest scale preset, the
// module without SIMD, an iframe that follows its content, layouts at 1280 and 390 px without sideways scrolling,
// and no console error or warning in any engine; then the same picture in every engine (the same sections in the
// same order, every heading visible, no clipped text). Expected numbers come from fixtures/ (the core's fixture
// and numpy's), or, where the fixture has none (the scale preset's table), from what Chromium shows.
// One browser per engine for the file, a fresh page per check; every page is served by tests/engines/engines.mjs
// (dist/ or QKV_DIST, the browser tests' CSP, a console capture in every page).
//   node --test --test-concurrency=1 tests/engines/*.test.mjs      (QKV_ENGINES=webkit for one engine)
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertNoProblems, qkvExpected, readFixture, repo } from '../browser/harness.mjs';
import { engineNames, launchEngine, startEngineServer } from './engines.mjs';

const numpy = JSON.parse(readFileSync(resolve(repo, 'fixtures/numpy/self_score.json'), 'utf8'));
const moduleCase = numpy.cases.find((c) => c.seed === 1 && c.tokens === 5 && c.dim === 8);
const search = numpy.searches.find((s) => s.kind === 'none' && s.tokens === 5 && s.dim === 8 && s.start_seed === 1);
const outputKeys = ['query', 'key', 'value', 'input_gradient', 'query_weight_gradient', 'key_weight_gradient', 'value_weight_gradient'];
const texts = (values) => values.map((value) => String(value));
// Screenshots of the standalone page at 1280 px, one per engine, kept for a person to look at.
const shots = process.env.QKV_ENGINE_SHOTS ?? join(tmpdir(), 'qkv-engine-shots');

let server;
let fixture;
before(async () => {
  server = await startEngineServer();
  fixture = await readFixture();
});
after(() => server?.close());

// What one engine showed, for the checks that compare engines.
const seen = Object.fromEntries(engineNames.map((name) => [name, {}]));

// --- in the page (each function runs in the page as it is: no closures) ------------------------------------

const state = () => {
  const state = window.__engines.doc().querySelector('qkv-lesson')?.dataset.state;
  return state === 'ready' || state === 'error' ? state : false;
};
const laidOut = () => window.__engines.doc().querySelector('qkv-lesson').dataset.laidOut !== undefined;
const lessonText = () => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.textContent;
const rendered = () => Number(window.__engines.doc().querySelector('qkv-lesson').dataset.rendered);
// The texts of a tensor's table, row-major (an input's value for editable tables), as tests/browser reads them.
const tableTexts = (key) =>
  [...window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelectorAll(`table[data-tensor="${key}"] tbody td`)]
    .filter((cell) => !cell.classList.contains('empty'))
    .map((cell) => (cell.querySelector('input') ? cell.querySelector('input').value : cell.textContent.trim()));
// Types into a field as a learner does (its value, then an input event) and presses a button by its text.
const type = ({ selector, value }) => {
  const field = window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(selector);
  field.focus();
  field.value = value;
  field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
};
const press = ({ within, text }) => {
  const scope = window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(within);
  const button = [...scope.querySelectorAll('button')].find((candidate) => candidate.textContent.trim().startsWith(text));
  button.click();
};
const exists = (selector) => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(selector) !== null;
const noSidewaysScroll = () => {
  const doc = window.__engines.doc();
  const page = doc.documentElement;
  const lesson = doc.querySelector('qkv-lesson').getBoundingClientRect();
  return { scrollWidth: page.scrollWidth, clientWidth: page.clientWidth, lessonRight: Math.ceil(lesson.right) };
};

// --- checks ----------------------------------------------------------------------------------------------

async function openLesson(engine, { width = 1280, height = 900, path = '' } = {}) {
  const page = await engine.newPage({ width, height });
  await page.goto(`${server.url}${path}`);
  const ended = await page.waitFor(state, undefined, { timeout: 60000, message: `${engine.name}: the lesson ends loading` });
  if (ended !== 'ready') assert.fail(`${engine.name}: data-state="${ended}", the lesson shows: ${await page.evaluate(lessonText)}`);
  // A trap while starting is met with one fresh instance (element.ts, tested in tests/browser/wasm-download); the
  // report says when an engine needed it.
  const restarted = await page.evaluate(() => window.__engines.doc().querySelector('qkv-lesson').dataset.coreRestarted ?? null);
  if (restarted) console.log(`# ${engine.name}: the core trapped while the lesson started (${restarted}); a fresh instance started it`);
  await page.waitFor(laidOut, undefined, { message: `${engine.name}: data-laid-out` });
  return page;
}

// Opens a page, runs `check`, and always closes the page; no problem may have been recorded.
async function withLesson(engine, options, check) {
  server.requested.length = 0;
  const page = await openLesson(engine, options);
  try {
    await check(page);
    assertNoProblems(await page.problems(), `${engine.name}`);
  } finally {
    await page.close();
  }
}

const wasmRequested = () => server.requested.filter((path) => path.endsWith('.wasm')).map((path) => path.split('/').pop());

// How the page writes a number inside a sum (tests/browser/learner.test.mjs): U+2212 minus, negatives in parentheses.
const prose = (text) => text.replace(/^-/, '−');
const factor = (text) => (text.startsWith('-') ? `(${prose(text)})` : text);

// Chromium runs the whole browser suite (tests/browser) already; here it shows only what the other engines are
// compared with: the picture at 1280 px, the numbers after an edit and the scale preset's table. A check that only
// repeats tests/browser (390 px: layout; hints: answers; provenance: learner; the self-score worker and its search:
// self-score; without SIMD: wasm-variant; the iframe's height: embed) runs in Firefox and WebKit alone.
const comparedWithChromium = new Set(['picture', 'edit', 'scale']);

for (const name of engineNames) {
  describe(name, () => {
    let engine;
    // `check(what, title, body)`: a test in this engine, unless the engine is Chromium and `what` is not compared.
    const check = (what, title, body) => {
      if (name !== 'chromium' || comparedWithChromium.has(what)) test(title, body);
    };
    before(async () => {
      engine = await launchEngine(name);
    });
    after(() => engine?.close());

    check('picture', `${name}: ready at 1280 px with the fixture's numbers, SIMD, the bars of W̄ drawn, no sideways scrolling`, async () => {
      await withLesson(engine, {}, async (page) => {
        assert.equal(await page.viewportWidth(), 1280, 'a 1280 px viewport');
        assert.deepEqual(await page.evaluate(tableTexts, 'query'), texts(fixture.expected.query.values), 'Q is the fixture’s');
        const layout = await page.evaluate(noSidewaysScroll);
        assert.ok(layout.scrollWidth <= layout.clientWidth && layout.lessonRight <= layout.clientWidth, `no sideways scrolling at 1280 px: ${JSON.stringify(layout)}`);
        // Each gradient's caption keeps its text ("W̄_Q …") and draws the bar as an overline on the W.
        const bars = await page.evaluate(() =>
          ['query_weight_gradient', 'key_weight_gradient', 'value_weight_gradient'].map((key) => {
            const caption = window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(`table[data-tensor="${key}"] caption`);
            const bar = caption.querySelector('.bar');
            return { text: caption.textContent.slice(0, 4), bar: bar ? `${bar.firstChild.textContent} ${getComputedStyle(bar).textDecorationLine}` : null };
          }),
        );
        assert.deepEqual(bars, ['Q', 'K', 'V'].map((letter) => ({ text: `W̄_${letter}`, bar: 'W overline' })), 'W̄ captions');
        // The picture compared across engines (last test), and a screenshot of it.
        seen[name].picture = await page.evaluate(picture);
        const png = await page.screenshot();
        mkdirSync(shots, { recursive: true });
        writeFileSync(join(shots, `${name}-1280.png`), png);
        assert.equal(png.subarray(1, 4).toString(), 'PNG', 'a PNG screenshot');
        assert.equal(png.readUInt32BE(16), 1280, 'the screenshot is 1280 px wide');
        // The self-score section's first result, computed by its worker, then the whole lesson's text (compared
        // with the module without SIMD below).
        await page.waitFor(exists, 'section.self-score:not([data-busy]) .self-score-results[data-shown="1 5 8"]', { timeout: 60000, message: 'the self-score results' });
        seen[name].text = await page.evaluate(lessonText);
        const wasm = wasmRequested();
        assert.ok(wasm.length >= 1 && wasm.every((file) => /^qkv-simd-[\w-]+\.wasm$/.test(file)), `${name} has WebAssembly SIMD: only the SIMD module is downloaded (${wasm.join(', ')})`);
      });
    });

    check('narrow', `${name}: at 390 px, no sideways scrolling`, async () => {
      await withLesson(engine, { width: 390, height: 844 }, async (page) => {
        assert.equal(await page.viewportWidth(), 390, `a 390 px viewport${page.framed ? ' (a frame of that width: the window cannot be so narrow)' : ''}`);
        const layout = await page.evaluate(noSidewaysScroll);
        assert.ok(layout.scrollWidth <= layout.clientWidth && layout.lessonRight <= layout.clientWidth, `no sideways scrolling at 390 px: ${JSON.stringify(layout)}`);
      });
    });

    // A teacher's tablet (issue 38): the sticky sizes bar, with its status line, takes at most a tenth of a 768 px
    // screen, and its name sits inside its box (WebKit drew a fieldset's legend across the border, on a line of
    // its own: 81 px).
    test(`${name}: at 1024 × 768 the sizes bar takes at most a tenth of the screen, its name inside it`, async () => {
      await withLesson(engine, { width: 1024, height: 768 }, async (page) => {
        const bar = await page.evaluate(() => {
          const root = window.__engines.doc().querySelector('qkv-lesson').shadowRoot;
          const controls = root.querySelector('.controls').getBoundingClientRect();
          const group = root.querySelector('.controls .sizes').getBoundingClientRect();
          const title = root.querySelector('.controls .sizes-title').getBoundingClientRect();
          return { height: controls.height, inside: title.top >= group.top && title.bottom <= group.bottom && title.left >= group.left && title.right <= group.right };
        });
        assert.ok(bar.height <= 768 / 10, `${name}: the sizes bar is ${bar.height} px tall at 1024 × 768, over a tenth of the screen`);
        assert.ok(bar.inside, `${name}: the bar's name sits inside its box`);
      });
    });

    check('grading', `${name}: a wrong answer gets a hint, a right one "Correct"`, async () => {
      await withLesson(engine, {}, async (page) => {
        const form = 'form[data-exercise="ch26-parameter-count"]';
        const feedback = (form) => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(`${form} [data-feedback]`).textContent;
        const answered = ({ form, value }) => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(form).dataset.answered === value;
        const right = String(fixture.expected.parameter_count);
        await page.evaluate(type, { selector: `${form} input[type="text"]`, value: String(fixture.expected.parameter_count - 1) });
        await page.evaluate(press, { within: form, text: 'Check' });
        await page.waitFor(answered, { form, value: 'incorrect' }, { message: 'graded wrong' });
        const wrong = await page.evaluate(feedback, form);
        assert.match(wrong, /Not quite/, `a wrong count: "${wrong}"`);
        assert.match(wrong, /Hint: /, `a wrong count gets a hint: "${wrong}"`);
        assert.ok(!wrong.includes('Answer:'), `the first wrong try keeps the answer back: "${wrong}"`);
        await page.evaluate(type, { selector: `${form} input[type="text"]`, value: right });
        await page.evaluate(press, { within: form, text: 'Check' });
        await page.waitFor(answered, { form, value: 'correct' }, { message: 'graded right' });
        assert.match(await page.evaluate(feedback, form), /Correct/, `${right} is correct`);
      });
    });

    check('edit', `${name}: an edit of X recomputes every output as the core does`, async () => {
      await withLesson(engine, {}, async (page) => {
        const before = await page.evaluate(rendered);
        await page.evaluate(type, { selector: 'table[data-tensor="input"] input[data-index="0"]', value: '2' });
        await page.waitFor((n) => Number(window.__engines.doc().querySelector('qkv-lesson').dataset.rendered) > n, before, { message: 'rendered after the edit' });
        const edited = structuredClone(fixture);
        edited.input.values[0] = 2;
        const expected = qkvExpected(edited);
        for (const key of outputKeys) assert.deepEqual(await page.evaluate(tableTexts, key), texts(expected[key]), `${key} after X[0] = 2`);
        const shown = {};
        for (const key of outputKeys) shown[key] = await page.evaluate(tableTexts, key);
        shown.loss = await page.evaluate(() => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector('.loss').textContent);
        assert.ok(shown.loss.includes(`L = ${expected.loss}`), `the loss reads L = ${expected.loss}: "${shown.loss}"`);
        seen[name].edit = shown;
        if (name !== 'chromium' && seen.chromium?.edit) assert.deepEqual(shown, seen.chromium.edit, 'the same text as Chromium');
      });
    });

    check('provenance', `${name}: focusing a computed cell explains it`, async () => {
      await withLesson(engine, {}, async (page) => {
        await page.evaluate(() => {
          for (const summary of window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelectorAll('details.evidence:not([open]) > summary')) summary.click();
        });
        await page.evaluate(() => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector('table[data-tensor="query"] td[data-index="1"]').focus());
        // Q[0,0,1] = Σ_k X[0,0,k]·W_Q[k,1], from the fixture.
        const [, , d] = fixture.input.shape;
        const h = fixture.query_weight.shape[1];
        const pairs = [...Array(d).keys()].map((k) => [String(fixture.input.values[k]), String(fixture.query_weight.values[k * h + 1])]);
        const want = `Q[0,0,1] = ${pairs.map(([a, b]) => `${factor(a)}·${factor(b)}`).join(' + ')} = ${prose(String(fixture.expected.query.values[1]))}`;
        const said = await page.waitFor(
          (want) => {
            const line = window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector('[data-provenance="query"] .expression');
            return line && line.textContent === want ? line.textContent : false;
          },
          want,
          { message: `the line under Q reads "${want}"` },
        );
        assert.equal(said, want);
      });
    });

    check('self-score', `${name}: the self-score worker shows numpy's experiment and finds numpy's seed`, async () => {
      await withLesson(engine, {}, async (page) => {
        const section = 'section.self-score';
        await page.waitFor(exists, `${section}:not([data-busy]) .self-score-results[data-shown="1 5 8"]`, { timeout: 60000, message: 'the experiment shown' });
        const maxima = await page.evaluate((section) => {
          const root = window.__engines.doc().querySelector('qkv-lesson').shadowRoot;
          return Object.fromEntries(
            ['none', 'separate', 'tied'].map((kind) => [
              kind,
              [...root.querySelectorAll(`${section} table[data-scores="${kind}"] tbody tr`)].map((row) => [...row.querySelectorAll('td')].findIndex((cell) => cell.classList.contains('row-max'))),
            ]),
          );
        }, section);
        for (const kind of ['none', 'separate', 'tied']) assert.deepEqual(maxima[kind], moduleCase[kind].argmax, `${kind}: numpy's row maxima`);
        // Where it ran (data-ran-in, from the runner: worker or page), and the worker's script was fetched.
        const ranIn = await page.evaluate((section) => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(`${section} .self-score-results`).getAttribute('data-ran-in'), section);
        assert.equal(ranIn, 'worker', 'the experiment ran in the worker');
        assert.ok(server.requested.some((path) => /\/self-score-worker-[\w-]+\.js$/.test(path)), 'the self-score worker was started');

        await page.evaluate(press, { within: section, text: 'Find the next seed' });
        await page.waitFor(exists, `${section}:not([data-busy]) .self-score-results[data-shown="${search.seed} 5 8"]`, { timeout: 60000, message: `the search found seed ${search.seed}` });
        const status = await page.evaluate((section) => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(`${section} p[role="status"]`).textContent, section);
        assert.match(status, new RegExp(`Seed ${search.seed}: row ${search.row} of X Xᵀ peaks at token ${search.argmax}`));
      });
    });

    check('scale', `${name}: the smallest scale preset runs in its worker`, async () => {
      await withLesson(engine, {}, async (page) => {
        const section = 'section.scale';
        await page.evaluate((section) => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(`${section} button[data-preset="lesson"]`).click(), section);
        await page.waitFor(exists, `${section}:not([data-busy]) .scale-results[data-shown="lesson"]`, { timeout: 60000, message: 'the lesson preset shown' });
        const shown = await page.evaluate((section) => {
          const root = window.__engines.doc().querySelector('qkv-lesson').shadowRoot;
          const rows = [...root.querySelector(`${section} table.scale-table`).querySelectorAll('tbody tr')].map((tr) => [...tr.children].slice(0, 2).map((cell) => cell.textContent));
          return { rows, text: root.querySelector(`${section} .scale-results`).textContent };
        }, section);
        const [, t, d] = fixture.input.shape;
        assert.equal(shown.rows[0][0], `[1, ${t}, ${d}] → ${fixture.query_weight.shape[1]}`, 'the lesson’s own sizes');
        assert.match(shown.text, new RegExp(`${fixture.expected.parameter_count} parameters in all`));
        seen[name].scale = shown.rows;
        if (name !== 'chromium' && seen.chromium?.scale) assert.deepEqual(shown.rows, seen.chromium.scale, 'the same shapes and counts as Chromium');
        assert.ok(server.requested.some((path) => /\/scale-worker-[\w-]+\.js$/.test(path)), 'computed in the scale worker');
        assert.equal(wasmRequested().filter((file) => file.startsWith('qkv-scale')).length, 1, 'the scale module downloaded once');
      });
    });

    check('no-simd', `${name}: without WebAssembly SIMD, the module without SIMD shows the same lesson`, async () => {
      assert.ok(seen[name].text, 'the SIMD lesson’s text (the first check) is known');
      await withLesson(engine, { path: 'nosimd/' }, async (page) => {
        await page.waitFor(exists, 'section.self-score:not([data-busy]) .self-score-results[data-shown="1 5 8"]', { timeout: 60000, message: 'the self-score results' });
        const wasm = wasmRequested();
        // The module without SIMD, once; beside it only the SIMD file the built page preloads (web/preload-wasm.ts),
        // which core.ts reads and drops (WebKitGTK's automation session, without an HTTP cache, downloads it again).
        const plain = wasm.filter((file) => /^qkv-(?!simd)[\w-]+\.wasm$/.test(file));
        const preloaded = wasm.filter((file) => /^qkv-simd-[\w-]+\.wasm$/.test(file));
        assert.ok(plain.length === 1 && plain.length + preloaded.length === wasm.length, `only the module without SIMD is compiled (${wasm.join(', ')})`);
        assert.equal(await page.evaluate(lessonText), seen[name].text, 'the same lesson, every number included');
      });
    });

    check('embed', `${name}: an iframe with qkv-embed-host.js follows the lesson's height`, async () => {
      server.requested.length = 0;
      const page = await engine.newPage({ width: 1280, height: 900 });
      try {
        await page.goto(`${server.url}__engines/embed-host.html?sections=exercises`);
        // The frame fits its lesson exactly as tests/browser's frameFitsContent says (all of it, no inner scrolling,
        // at most 24 px taller); returns the frame's height then.
        const fits = () => {
          const frame = document.querySelector('iframe[data-qkv-lesson]');
          const doc = frame.contentDocument;
          const lesson = doc?.querySelector('qkv-lesson');
          if (!lesson || lesson.dataset.state !== 'ready' || !frame.style.height) return false;
          const height = Math.ceil(lesson.getBoundingClientRect().height);
          const inner = doc.documentElement;
          const ok = frame.style.height === `${frame.clientHeight}px` && frame.clientHeight === inner.scrollHeight && inner.clientHeight === inner.scrollHeight && frame.clientHeight >= height && frame.clientHeight - height <= 24;
          return ok ? frame.clientHeight : false;
        };
        const wide = await page.waitFor(fits, undefined, { timeout: 60000, message: 'the frame fits the lesson at 900 px' });
        // Narrower, the same lesson is taller: the frame follows.
        await page.evaluate(() => document.querySelector('iframe[data-qkv-lesson]').setAttribute('width', '420'));
        const narrow = await page.waitFor((wide) => {
          const frame = document.querySelector('iframe[data-qkv-lesson]');
          return frame.clientHeight > wide && frame.style.height === `${frame.clientHeight}px` ? true : false;
        }, wide, { message: 'the frame grows when the lesson gets taller' });
        assert.ok(narrow);
        const fitted = await page.waitFor(fits, undefined, { message: 'the frame fits the lesson at 420 px' });
        assert.ok(fitted > wide, `taller at 420 px (${fitted}) than at 900 px (${wide})`);
        assertNoProblems(await page.problems(), `${name}: embed`);
      } finally {
        await page.close();
      }
    });
  });
}

// The page at 1280 px as a structure: the lesson's sections in order with their headings (visible or not), and
// every text block whose text is wider than its box (by more than a glyph's overhang).
function picture() {
  const doc = window.__engines.doc();
  const root = doc.querySelector('qkv-lesson').shadowRoot;
  const visible = (element) => {
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  };
  const sections = [...root.querySelectorAll('[data-section]')]
    .filter((section) => !section.hidden && visible(section))
    .map((section) => {
      // The scale section's heading is an h4 when it sits in the optional part (under its h3, web/src/lesson/scale.ts).
      const heading = section.querySelector('h2, h3, h4');
      return { name: section.dataset.section, heading: heading ? heading.textContent.trim() : null, headingVisible: !!heading && visible(heading) };
    });
  // Text for screen readers only (.visually-hidden: a 1 px clipped box) is meant to be clipped. KaTeX's italic
  // letters overhang their box by a pixel or two (WQ in a 124 px term is 126 px wide in Chromium): up to 2 px is
  // a glyph's overhang, more is text that does not fit.
  const blocks = 'h1, h2, h3, h4, p, li, caption, summary, legend, dt, dd, button, label';
  const clipped = [...doc.querySelectorAll(blocks), ...root.querySelectorAll(blocks)]
    .filter((element) => !element.matches('.visually-hidden') && element.clientWidth > 0 && element.scrollWidth > element.clientWidth + 2 && visible(element))
    .map((element) => `<${element.tagName.toLowerCase()} class="${element.className}"> "${element.textContent.trim().slice(0, 60)}": ${element.scrollWidth} > ${element.clientWidth}`);
  return { sections, clipped };
}

test('the same picture in every engine: the same sections in the same order, headings visible, no clipped text', () => {
  const pictures = engineNames.map((name) => [name, seen[name].picture]);
  for (const [name, shown] of pictures) {
    assert.ok(shown, `${name}: the page at 1280 px was seen (its first check passed)`);
    assert.ok(shown.sections.length >= 5, `${name}: the lesson's sections (${shown.sections.map((s) => s.name).join(', ')})`);
    for (const section of shown.sections) assert.ok(section.heading && section.headingVisible, `${name}: section ${section.name} shows its heading (${JSON.stringify(section)})`);
    assert.deepEqual(shown.clipped, [], `${name}: no text wider than its box`);
  }
  const [first, firstShown] = pictures[0];
  for (const [name, shown] of pictures.slice(1)) assert.deepEqual(shown.sections, firstShown.sections, `${name} shows the sections ${first} shows, in the same order`);
});
