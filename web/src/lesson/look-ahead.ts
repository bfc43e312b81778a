// "What the views are for": the first use of Q and K, a look ahead at the next lesson's scores. Its questions
// (`predict` places each) and their folded evidence: where this layer stops, the query–key scores (the score
// figure, its provenance line and the core's sentence on X Xᵀ against S), why a weight scales the scores and why
// there is no bias, and one row of the next lesson.
import { h } from './dom';
import { fold } from './evidence-parts';

export interface LookAheadParts {
  predict: (id: string) => HTMLElement;
  scores: HTMLElement; // the score figure
  scoresProvenance: HTMLElement;
  ownTokenPeaks: HTMLElement;
  valuePreview: HTMLElement;
}

export function lookAheadSection({ predict, scores, scoresProvenance, ownTokenPeaks, valuePreview }: LookAheadParts): HTMLElement {
  return h(
    'section',
    { class: 'look-ahead part', 'aria-labelledby': 'views-for' },
    h('h4', { id: 'views-for' }, 'What the views are for'),
    h('p', {}, 'Before seeing what attention does with Q, K and V, say where this layer stops.'),
    predict('ch26-still-missing'),
    fold(
      ['ch26-still-missing'],
      'what attention does with Q, K and V',
      h(
        'p',
        {},
        'Each projection works on one token position at a time. V waits until the mixture: it carries the content to be mixed. The probabilities and the mixture are the next lesson; the scores can be computed now, from Q and K.',
      ),
    ),
    h('p', {}, 'A query and a key are compared by their dot product, the sum of their coordinates multiplied pairwise.'),
    predict('ch26-best-key'),
    fold(
      ['ch26-best-key'],
      'the query–key scores',
      h('p', {}, 'S[b,i,j] is the dot product of token i’s query with token j’s key in the same batch item b: S = Q Kᵀ, with the rows of every batch item stacked. These are raw dot products, before any scaling or softmax.'),
      // A figure of its own, which scrolls (if ever) inside itself and keeps its caption in view.
      scores,
      scoresProvenance,
      ownTokenPeaks,
    ),
    // Two predictions on the scores: each answer and its numbers come from the core's explanation.
    predict('ch26-double-key-weight'),
    predict('ch26-key-bias'),
    fold(
      ['ch26-double-key-weight', 'ch26-key-bias'],
      'why a weight scales the scores and why there is no bias',
      h('p', {}, 'Each score qᵢ·kⱼ is a sum of products with one factor from the key, so scaling every key scales every score by the same factor; Q and V never read W_K. Try it: type each entry of W_K twice as large in the diagram, and the status line names what changed.'),
      h('p', {}, 'With a key bias b_K, a score becomes qᵢ·kⱼ + qᵢ·b_K: the added term depends on the query alone, so a whole row of scores moves by one number, and the next lesson’s softmax gives such a row the same probabilities. A key bias would be parameters that change nothing. A query bias b_Q adds b_Q·kⱼ, which differs from key to key: a fixed preference for some keys, whatever the query. The original Transformer has none here (its paper’s formulas; use_bias=False in its reference code, tensor2tensor); BERT and GPT-2 add one.'),
    ),
    predict('ch26-preview-weights'),
    fold(['ch26-preview-weights'], 'one row of the next lesson', valuePreview),
  );
}
