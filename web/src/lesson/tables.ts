// Matrices as real tables: a caption naming the tensor and its shape, header cells for token and feature
// indices, and `data-tensor` set to the evidence key so tests and course authors can find them.
import { h } from './dom';
import type { EditableTensor, TensorEvidence } from './types';

export interface RowLabel {
  text: string; // what the header cell shows ("b0 t1", "d2")
  name: string; // how a screen reader names a cell's row ("batch 0, token 1")
}

// Row headers for a tensor: [B, T, F] has one row per (batch, token); [D, H] one per input feature.
export function rowLabels(shape: number[]): RowLabel[] {
  const labels: RowLabel[] = [];
  if (shape.length === 3) {
    for (let b = 0; b < shape[0]; b++) {
      for (let t = 0; t < shape[1]; t++) labels.push({ text: `b${b} t${t}`, name: `batch ${b}, token ${t}` });
    }
  } else if (shape.length === 2) {
    for (let r = 0; r < shape[0]; r++) labels.push({ text: `${r}`, name: `row ${r}` });
  }
  return labels;
}

function columnCount(shape: number[]): number {
  return shape.length === 0 ? 0 : shape[shape.length - 1];
}

function header(shape: number[], corner: string, columnPrefix: string): HTMLTableSectionElement {
  const row = h('tr', {}, h('th', { scope: 'col' }, corner));
  for (let c = 0; c < columnCount(shape); c++) row.append(h('th', { scope: 'col' }, `${columnPrefix}${c}`));
  return h('thead', {}, row);
}

function emptyBody(shape: number[]): HTMLTableSectionElement {
  return h(
    'tbody',
    {},
    h('tr', {}, h('td', { colspan: `${columnCount(shape) + 1}`, class: 'empty' }, 'No rows: an axis of this shape is empty.')),
  );
}

function corner(shape: number[]): string {
  return shape.length === 3 ? 'token' : 'in';
}

function columnPrefix(shape: number[]): string {
  return shape.length === 3 ? 'f' : 'out ';
}

// "Q (query output), shape [1, 2, 2]": the words may wrap, the shape stays on one line.
export function tensorCaption(label: string, shapeText: string): (Node | string)[] {
  return [...withBars(label), ', shape ', h('span', { class: 'shape' }, shapeText)];
}

// A letter with a combining macron (W̄, X̄: a gradient) as the letter under an overline, with the mark kept in the
// text at zero size, so the caption still reads "W̄_Q" (to a screen reader and to innerText). WebKit draws U+0304
// at lower-case height, inside a capital, where the bar cannot be seen: the weights' gradients read as the weights.
function withBars(label: string): (Node | string)[] {
  return label
    .split(/(\p{L}\u0304)/u)
    .filter((part) => part !== '')
    .map((part) => (part.endsWith('\u0304') ? h('span', { class: 'bar' }, part.slice(0, -1), h('span', { class: 'bar-mark' }, '\u0304')) : part));
}

// The table every matrix shares: caption, column headers, one row per row label, and `cellContent` for
// each cell (given its row-major index, its row label and its column).
function matrix(
  attributes: Record<string, string>,
  caption: (Node | string)[],
  shape: number[],
  cellContent: (cell: number, row: RowLabel, column: number) => Node,
  cellAttributes: (cell: number) => Record<string, string> = () => ({}),
): HTMLTableElement {
  const table = h('table', attributes, h('caption', {}, ...caption));
  table.append(header(shape, corner(shape), columnPrefix(shape)));
  const labels = rowLabels(shape);
  if (labels.length === 0) {
    table.append(emptyBody(shape));
    return table;
  }
  const body = h('tbody');
  let cell = 0;
  for (const label of labels) {
    const row = h('tr', {}, h('th', { scope: 'row' }, label.text));
    for (let c = 0; c < columnCount(shape); c++) {
      const td = h('td', cellAttributes(cell), cellContent(cell, label, c));
      if (td.hasAttribute('data-index')) cellIndexes.set(td, cell);
      row.append(td);
      cell++;
    }
    body.append(row);
  }
  table.append(body);
  return table;
}

// A read-only matrix whose cells are the core's formatted strings. An `explained` matrix's cells can be
// focused (one tab stop, arrow keys move: a roving tabindex) to show where each number comes from.
export function matrixTable(key: string, label: string, tensor: TensorEvidence, attribute = 'data-tensor', explained = false): HTMLTableElement {
  const attributes: Record<string, string> = { [attribute]: key, class: explained ? 'matrix computed' : 'matrix' };
  return matrix(
    attributes,
    tensorCaption(label, tensor.shape_text),
    tensor.shape,
    (cell) => h('bdi', { dir: 'ltr' }, tensor.text[cell]),
    (cell): Record<string, string> => (explained ? { 'data-index': `${cell}`, tabindex: cell === 0 ? '0' : '-1' } : {}),
  );
}

// The cell an arrow key (or Home/End) moves to from `from` (a td or the input in one), or null at an edge.
// Inputs keep Left/Right for their caret; computed cells use all four arrows.
export function arrowTarget(from: HTMLElement, key: string): HTMLElement | null {
  const cell = from.closest('td');
  const row = cell?.parentElement;
  if (!cell || !(row instanceof HTMLTableRowElement) || !row.parentElement) return null;
  const rows = [...row.parentElement.children] as HTMLTableRowElement[];
  const r = rows.indexOf(row);
  const c = cell.cellIndex;
  const input = from instanceof HTMLInputElement;
  const firstData = row.querySelector('td')?.cellIndex ?? c;
  const targets: Record<string, HTMLTableCellElement | undefined> = {
    ArrowUp: rows[r - 1]?.cells[c],
    ArrowDown: rows[r + 1]?.cells[c],
    ArrowLeft: input ? undefined : row.cells[c - 1],
    ArrowRight: input ? undefined : row.cells[c + 1],
    Home: input ? undefined : row.cells[firstData],
    End: input ? undefined : row.cells[row.cells.length - 1],
  };
  const target = targets[key];
  if (!target || target.tagName !== 'TD') return null;
  return target.querySelector('input') ?? target;
}

// Moves the roving tab stop of an explained table to `cell` (and focuses it).
export function focusCell(cell: HTMLElement): void {
  const table = cell.closest('table');
  if (cell instanceof HTMLTableCellElement && table) {
    for (const other of table.querySelectorAll('td[tabindex="0"]')) other.setAttribute('tabindex', '-1');
    cell.setAttribute('tabindex', '0');
  }
  cell.focus();
}

// An editable matrix: one labelled text input per cell. The page never reads the numbers; it hands the
// typed text to the core, which parses it or says why not.
export function editableTable(
  key: string,
  label: string,
  tensor: EditableTensor,
  shapeText: string,
  errorId: string,
): HTMLTableElement {
  const attributes = { 'data-tensor': key, 'data-editable': key, class: 'matrix editable' };
  return matrix(attributes, tensorCaption(label, shapeText), tensor.shape, (cell, row, column) => {
    // Not inputmode "decimal": its iOS keypad has no minus sign, and most weights need one.
    const input = h('input', {
      type: 'text',
      inputmode: 'text',
      autocomplete: 'off',
      spellcheck: 'false',
      'data-field': key,
      'data-index': `${cell}`,
      'aria-label': `${label}, ${row.name}, ${tensor.shape.length === 3 ? 'feature' : 'column'} ${column}`,
      'aria-describedby': errorId,
    });
    input.value = tensor.cells[cell];
    cellIndexes.set(input, cell);
    return input;
  });
}

// The row-major cell an editable input or an explained cell stands for: its data-index, kept as the number it was
// written from when the cell was made (the page parses no numbers), never its position among its neighbours.
const cellIndexes = new WeakMap<Element, number>();
export function cellIndexOf(cell: Element): number | undefined {
  return cellIndexes.get(cell);
}
// Records the row-major cell a cell made outside `matrix` stands for (the score figure's).
export function indexCell(cell: Element, index: number): void {
  cellIndexes.set(cell, index);
}
