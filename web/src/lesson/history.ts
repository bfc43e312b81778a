// "Where attention’s inputs come from" (Going deeper): additive encoder–decoder attention, the Transformer's
// dot products and three roles, further reading, the history question and its folded table.
import { h, part } from './dom';
import { fold, scroller } from './evidence-parts';

const link = (href: string, text: string) => h('a', { href }, text);

// The part, with the question's place (`question`) and the folded evidence, whose table goes in `table`.
export function historyPart(question: HTMLElement, table: HTMLElement): HTMLElement {
  return part(
    h('h4', { id: 'history' }, 'Where attention’s inputs come from'),
    h(
      'p',
      {},
      'Attention is older than the Transformer. In the encoder–decoder translation model of ',
      link('https://arxiv.org/abs/1409.0473', 'Bahdanau, Cho and Bengio (2014)'),
      ', an encoder reads the source sentence into a sequence of annotations, one per source word, and a decoder writes the translation one word at a time. Before the decoder writes each output word, a small feed-forward network scores its previous hidden state against every annotation (additive scoring: both are projected, added, passed through tanh and reduced to one number). A softmax turns the scores into weights, and the weighted mix of the annotations is the context the decoder reads for that word.',
    ),
    h(
      'p',
      {},
      'The Transformer of ',
      link('https://arxiv.org/abs/1706.03762', 'Vaswani et al. (2017)'),
      ' scores with dot products instead (the scores you met in ',
      link('#views-for', 'what the views are for'),
      ') and calls the three roles queries, keys and values. Neither idea was new: ',
      link('https://arxiv.org/abs/1508.04025', 'Luong, Pham and Manning (2015)'),
      ' already scored with dot products, and ',
      link('https://arxiv.org/abs/1606.03126', 'key–value memory networks (Miller et al., 2016)'),
      ' kept separate keys for addressing and values for reading.',
    ),
    furtherReading(),
    question,
    fold(
      ['ch26-history'],
      'where attention’s inputs came from',
      h(
        'p',
        {},
        'In self-attention all three roles come from one and the same sequence: the queries, the keys and the values are three projections of the previous layer’s output X, exactly the three views this lesson computes. The Transformer’s decoder (the half that writes the output) also keeps an encoder–decoder attention, whose queries come from the decoder and whose keys and values come from the encoder.',
      ),
      table,
    ),
  );
}

function furtherReading(): HTMLElement {
  return h(
    'details',
    { class: 'further-reading' },
    h('summary', {}, 'Further reading'),
    h(
      'ul',
      {},
      h('li', {}, link('https://arxiv.org/abs/1409.0473', 'D. Bahdanau, K. Cho, Y. Bengio: Neural Machine Translation by Jointly Learning to Align and Translate (2014)'), ', the additive attention described above.'),
      h('li', {}, link('https://arxiv.org/abs/1508.04025', 'M.-T. Luong, H. Pham, C. D. Manning: Effective Approaches to Attention-based Neural Machine Translation (2015)'), ', dot-product and other scoring functions.'),
      h('li', {}, link('https://arxiv.org/abs/1606.03126', 'A. Miller et al.: Key-Value Memory Networks for Directly Reading Documents (2016)'), ', a memory addressed by keys and read through values.'),
      h('li', {}, link('https://arxiv.org/abs/1706.03762', 'A. Vaswani et al.: Attention Is All You Need (2017)'), ', self-attention with queries, keys and values (section 3.2).'),
    ),
  );
}

// The folded table: which source each mechanism reads its query-like and key/value-like sides from. Drawn on the
// first render, not when the diagram is built (it is folded, out of the first frames).
export function historyTable(): Node[] {
  return [
    scroller(
      'Attention source comparison',
      h(
        'table',
        { class: 'history' },
        h('caption', {}, 'Where attention’s inputs come from. Calling the decoder state “query-like” and the annotations “key/value-like” is a retrospective analogy, not the earlier papers’ terms.'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Mechanism'),
            h('th', { scope: 'col' }, 'Previous decoder state'),
            h('th', { scope: 'col' }, 'Encoder annotations'),
            h('th', { scope: 'col' }, 'One previous-layer sequence'),
          ),
        ),
        h(
          'tbody',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, 'Additive encoder–decoder attention (two sources)'),
            h('td', {}, 'the query side: compared with every annotation'),
            h('td', {}, 'the key and value side: scored, then mixed'),
            h('td', {}, 'not used'),
          ),
          h(
            'tr',
            { class: 'self-attention' },
            h('th', { scope: 'row' }, 'Transformer self-attention (one source)'),
            h('td', {}, 'not used'),
            h('td', {}, 'not used'),
            h('td', {}, 'all three roles: queries, keys and values'),
          ),
        ),
      ),
    ),
    h('p', { class: 'note' }, 'The query, key and value names come from the Transformer; applied to the earlier mechanism they are an analogy drawn afterwards.'),
  ];
}
