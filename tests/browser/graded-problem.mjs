// The problem on screen, as the SCORM and cmi5 tests read it: what a launch shows of a graded attempt's own problem
// (docs/scorm.md, docs/cmi5.md), to compare between attempts and relaunches, and the first-token question's answer
// for the numbers on screen, computed here from the diagram's tables with plain JS.
import assert from 'node:assert/strict';
import { readText, tableTexts } from './harness.mjs';

// Graded practice: what the learner sees of the problem on screen, and that the first-token question names its
// first token (the first row of X as shown, and that token's word).
export async function problemShown(frame) {
  const d = Number(await frame.locator('qkv-lesson input[data-size="model_width"]').inputValue());
  const x = await tableTexts(frame, 'input');
  const question = await readText(frame.locator('qkv-lesson form[data-exercise="ch26-first-token"] .question-title'));
  const firstRow = `[${x.slice(0, d).join(', ')}]`.replace(/-/g, '−');
  assert.ok(question.replace(/-/g, '−').includes(firstRow), `the first-token question names the problem's first token ${firstRow}: ${question}`);
  assert.match(question, /“[a-z]+”/, `the first-token question names the token's word: ${question}`);
  return {
    seed: await frame.locator('qkv-lesson .problem-seed').getAttribute('data-problem-seed'), // null on the chapter's own numbers
    x,
    weights: await tableTexts(frame, 'query_weight'),
    question,
  };
}

const read = (text) => Number(text.replace('−', '-'));

// q₀, k₀ and v₀ as the learner types them: the first row of X times each weight, from the tables on screen.
export async function firstTokenAnswer(frame) {
  const d = read(await frame.locator('qkv-lesson input[data-size="model_width"]').inputValue());
  const h = read(await frame.locator('qkv-lesson input[data-size="head_width"]').inputValue());
  const x = (await tableTexts(frame, 'input')).map(read);
  const answers = [];
  for (const key of ['query_weight', 'key_weight', 'value_weight']) {
    const w = (await tableTexts(frame, key)).map(read);
    const row = [];
    for (let j = 0; j < h; j++) {
      let total = 0;
      for (let k = 0; k < d; k++) total += x[k] * w[k * h + j];
      row.push(total);
    }
    answers.push(`[${row.join(', ')}]`);
  }
  return answers;
}
