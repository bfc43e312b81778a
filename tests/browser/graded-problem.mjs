// Graded practice (docs/scorm.md, docs/cmi5.md): what a launch shows of the attempt's own problem, for the SCORM
// and cmi5 tests to compare between attempts and relaunches.
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
    seed: await frame.locator('qkv-lesson [data-problem-seed]').getAttribute('data-problem-seed'),
    x,
    weights: await tableTexts(frame, 'query_weight'),
    question,
  };
}
