// S = Q Kᵀ as a product figure: each batch item's keys as Kᵀ's columns on top, its queries as Q's rows on the
// left, the scores in the grid, coloured as the self-score heatmaps are. A focused score marks its query row
// and key column inside the same figure, so the two vectors and the sum under it are seen together. Every
// number and colour level comes from the core (`scores`, `score_heat`, `query`, `key`).
import { h } from './dom';
import { cellIndexOf, indexCell } from './tables';
import type { Evidence } from './types';

// "q₀", "k₁₂": a position's digits as subscripts.
const subscript = (position: number) => [...`${position}`].map((digit) => '₀₁₂₃₄₅₆₇₈₉'['0123456789'.indexOf(digit)]).join('');

// "q₀ fresh": the short name of a token's query or key.
function tokenLabel(letter: 'q' | 'k', position: number, name: string): HTMLElement {
  return h('span', { class: 'token-label' }, `${letter}${subscript(position)} `, h('span', { class: 'token-name' }, name));
}

// One token's query or key vector, as the core wrote its numbers: a row ("[0, 3]") or a column (one per line).
function vector(texts: string[], direction: 'row' | 'column'): HTMLElement {
  if (direction === 'row') return h('bdi', { dir: 'ltr', class: 'vector row' }, `[${texts.join(', ')}]`);
  return h('span', { class: 'vector column' }, ...texts.map((text) => h('bdi', { dir: 'ltr' }, text)));
}

// The core's texts of tensor [b, t, :].
function rowTexts(texts: string[], tokens: number, width: number, b: number, t: number): string[] {
  const start = (b * tokens + t) * width;
  return texts.slice(start, start + width);
}

// One batch item: a header row of keys (Kᵀ's columns), then one row per query with its scores.
function batchItem(evidence: Evidence, b: number, batches: number): HTMLTableSectionElement {
  const [, tokens, width] = evidence.query.shape;
  const names = evidence.token_names;
  const corner = h('th', { scope: 'col', class: 'corner' }, batches > 1 ? `b${b}: ` : '', 'q · k');
  const keys = names.map((name, j) => h('th', { scope: 'col', class: 'key-column' }, tokenLabel('k', j, name), vector(rowTexts(evidence.key.text, tokens, width, b, j), 'column')));
  const body = h('tbody', { 'data-batch': `${b}` }, h('tr', { class: 'keys' }, corner, ...keys));
  names.forEach((name, i) => {
    const row = h('tr', {}, h('th', { scope: 'row', class: 'query-row' }, tokenLabel('q', i, name), ' ', vector(rowTexts(evidence.query.text, tokens, width, b, i), 'row')));
    names.forEach((_, j) => {
      const cell = (b * tokens + i) * tokens + j;
      const td = h('td', { 'data-index': `${cell}`, 'data-heat': `${evidence.score_heat[cell]}`, tabindex: cell === 0 ? '0' : '-1' }, h('bdi', { dir: 'ltr' }, evidence.scores.text[cell]));
      indexCell(td, cell);
      row.append(td);
    });
    body.append(row);
  });
  return body;
}

function scoreTable(evidence: Evidence, captionId: string): HTMLTableElement {
  const [batches, tokens] = evidence.scores.shape;
  const table = h('table', { class: 'matrix computed heatmap score-figure', 'data-tensor': 'scores', 'aria-labelledby': captionId });
  if (batches === 0 || tokens === 0) {
    table.append(h('tbody', {}, h('tr', {}, h('td', { class: 'empty' }, 'No scores: an axis of this shape is empty.'))));
    return table;
  }
  for (let b = 0; b < batches; b++) table.append(batchItem(evidence, b, batches));
  return table;
}

// What the colours mean, as the self-score tables say it.
function heatLegend(): HTMLElement {
  return h(
    'p',
    { class: 'score-legend' },
    h('span', { class: 'swatch', 'data-heat': '-4' }),
    ' negative … ',
    h('span', { class: 'swatch', 'data-heat': '4' }),
    ' positive (relative to the largest score)',
  );
}

// Builds the figure into `container` (its caption's id is the container's id + "-caption"), or, while the shape and the tokens' names stay the same, only updates its
// numbers and colours (so a focused score keeps focus while the learner edits elsewhere).
export function renderScoreFigure(container: HTMLElement, evidence: Evidence): void {
  const captionId = `${container.id}-caption`;
  const shapeKey = `${evidence.scores.shape_text} ${evidence.query.shape_text} ${evidence.token_names.join(' ')}`;
  const figure = container.firstElementChild as HTMLElement | null;
  if (figure?.dataset.shape !== shapeKey) {
    const caption = h('figcaption', { id: captionId }, 'S = Q Kᵀ: the query of each row dotted with the key of each column, shape ', h('span', { class: 'shape' }, evidence.scores.shape_text));
    const scroller = h('div', { class: 'scroller score-scroller', role: 'region', 'aria-label': 'Query–key scores', tabindex: '0' }, scoreTable(evidence, captionId));
    container.replaceChildren(h('figure', { class: 'score-product', 'data-shape': shapeKey }, caption, heatLegend(), scroller));
    return;
  }
  const [, tokens, width] = evidence.query.shape;
  figure.querySelectorAll<HTMLTableSectionElement>('tbody[data-batch]').forEach((body, b) => {
    body.querySelectorAll('.key-column .vector').forEach((column, j) => column.replaceWith(vector(rowTexts(evidence.key.text, tokens, width, b, j), 'column')));
    body.querySelectorAll('.query-row .vector').forEach((row, i) => row.replaceWith(vector(rowTexts(evidence.query.text, tokens, width, b, i), 'row')));
  });
  figure.querySelectorAll<HTMLElement>('td[data-index]').forEach((td) => {
    const cell = cellIndexOf(td)!;
    td.dataset.heat = `${evidence.score_heat[cell]}`;
    const text = td.firstElementChild!;
    if (text.textContent !== evidence.scores.text[cell]) text.textContent = evidence.scores.text[cell];
  });
}

// Marks the query row and key column the score `index` is made from (none when undefined), inside the figure.
export function markProduct(root: ParentNode, index: number | undefined): void {
  for (const marked of root.querySelectorAll('.score-figure .in-product')) marked.classList.remove('in-product', 'query-source', 'key-source');
  if (index === undefined) return;
  const td = root.querySelector<HTMLTableCellElement>(`table.score-figure td[data-index="${index}"]`);
  const row = td?.parentElement as HTMLTableRowElement | null;
  const keys = row?.parentElement?.querySelector<HTMLTableRowElement>('tr.keys');
  if (!td || !row || !keys) return;
  row.cells[0].classList.add('in-product', 'query-source');
  keys.cells[td.cellIndex].classList.add('in-product', 'key-source');
}
