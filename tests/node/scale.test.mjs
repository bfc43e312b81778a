// The scale section's own WebAssembly module, in both variants: each preset gives the core's shapes, counts
// and summaries (seeded, so the same text with and without SIMD and on every run); an unknown preset or a
// request of the wrong type is refused as a value; and the page's module does not carry the call.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { loadCore, loadScaleCore, root, variants } from './load.mjs';

const summaries = {};
for (const { name, suffix } of variants) {
  describe(`the scale module (${name})`, () => {
    test('each preset gives the core\'s shapes, counts and summaries; an unknown one is refused', async () => {
      const core = await loadScaleCore(suffix);
      assert.equal(typeof core.scale, 'function');
      for (const call of ['fixture', 'evaluate', 'exercises', 'checkAnswer', 'lessonOutcome', 'provenance', 'selfScoreSummary', 'findSeedWithProgress'])
        assert.equal(core[call], undefined, `the page's ${call} is not in the scale module`);
      const lesson = core.scale({ preset: 'lesson' });
      assert.equal(lesson.ok, true, JSON.stringify(lesson.error));
      assert.deepEqual([lesson.input_shape, lesson.weight_shape, lesson.output_shape, lesson.parameters], ['[1, 2, 3]', '[3, 2]', '[1, 2, 2]', '18']);
      assert.deepEqual([lesson.run.shape, lesson.run.multiply_adds, lesson.smaller.shape, lesson.smaller.multiply_adds], ['[1, 2, 3] → 2', '108', '[1, 1, 3] → 2', '54']);
      assert.deepEqual(lesson.summaries.map((s) => [s.name, s.shape]), [['Q', '[1, 2, 2]'], ['K', '[1, 2, 2]'], ['V', '[1, 2, 2]'], ['dL/dX', '[1, 2, 3]'], ['dL/dW_Q', '[3, 2]'], ['dL/dW_K', '[3, 2]'], ['dL/dW_V', '[3, 2]']]);
      assert.match(lesson.linear, /T = 2 has 2× the multiply-adds of T = 1/);
      // Only the forward products pair X with a weight's columns; backward's are U Wᵀ and Xᵀ U.
      assert.match(lesson.linear, /^Each forward product pairs every entry of X \(B·T·D of them\) with each of the H columns of its weight/);
      assert.doesNotMatch(lesson.linear, /Every multiply-add pairs/);
      // dL/dW_Q = Xᵀ·U_Q and Q = X·W_Q: seeded, so the summaries are the same text on every run.
      assert.deepEqual(core.scale({ preset: 'lesson' }).summaries, lesson.summaries);
      const small = core.scale({ preset: 'small' });
      assert.deepEqual([small.parameters, small.run.multiply_adds, small.smaller.shape], ['3072', '1.2e6', '[1, 64, 64] → 16']);
      summaries[name] = [lesson.summaries, small.summaries];
      const refused = core.scale({ preset: 'gpt-5' });
      assert.equal(refused.ok, false);
      assert.equal(refused.error.message, 'unknown scale preset "gpt-5"');
      assert.equal(core.scale({ preset: 5 }).error.message, 'request.preset must be a string, got number');
      assert.equal(core.scale().error.message, 'request must be an object, got an array', 'no request: refused, not thrown');
      assert.equal(core.scale({ preset: 'lesson' }, 2).error.message, 'request must be an object, got an array', 'two arguments');
    });
  });
}

// scale-presets.json is the one list of presets: the page's buttons import its `buttons`, the module is
// built from its `presets`. Each button names a preset the module runs, with the file's label and sizes.
test('each preset of scale-presets.json has a button, and the module runs it with the file\'s label and sizes', async () => {
  const { buttons, presets } = JSON.parse(readFileSync(`${root}web/src/lesson/scale-presets.json`, 'utf8'));
  assert.deepEqual(Object.keys(buttons), ['lesson', 'small', 'gpt2-head', 'gpt2-heads'], 'the buttons, in the page\'s order');
  assert.deepEqual(Object.keys(presets).sort(), Object.keys(buttons).sort(), 'a preset for every button');
  // GPT-2 small (Radford et al. 2019; its config: n_ctx 1024, n_embd 768, n_head 12): one head is 768 / 12 wide.
  for (const [name, heads] of [['gpt2-head', 1], ['gpt2-heads', 12]]) {
    const { tokens, model_width: d, head_width: h } = presets[name];
    assert.deepEqual([tokens, d, (h / heads) * 12], [1024, 768, 768], name);
  }
  const core = await loadScaleCore('-simd');
  for (const [name, { label, batch, tokens, model_width: d, head_width: h }] of Object.entries(presets)) {
    const run = core.scale({ preset: name });
    assert.equal(run.ok, true, `${name}: ${JSON.stringify(run.error)}`);
    assert.deepEqual([run.preset, run.label, run.input_shape, run.weight_shape, run.output_shape], [name, label, `[${batch}, ${tokens}, ${d}]`, `[${d}, ${h}]`, `[${batch}, ${tokens}, ${h}]`]);
  }
});

test('with and without SIMD, the same summaries', () => {
  assert.equal(Object.keys(summaries).length, variants.length);
  assert.deepEqual(summaries['WASM SIMD'], summaries.WASM);
});

test('the page\'s module leaves the scale call out', async () => {
  for (const { suffix } of variants) assert.equal((await loadCore(suffix)).scale, undefined);
});
