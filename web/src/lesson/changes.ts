// What an edit changed, in words for the live region and as cells to mark: the page compares the core's
// formatted texts before and after (string equality, no arithmetic) and names what differs.
import { rowLabels } from './tables';
import type { Evidence } from './types';

// The results an edit can change, with the short names the lesson gives them.
const results = [
  ['query', 'Q'],
  ['key', 'K'],
  ['value', 'V'],
  ['scores', 'S'],
] as const;
type ResultKey = (typeof results)[number][0];

export interface ChangedCell {
  key: ResultKey;
  index: number; // row-major, as the core's `text` lists them
}

export interface Changes {
  message: string;
  cells: ChangedCell[];
}

// The first change of each result is named ("Q at batch 0, token 0 is now [2, 3]" for a row of Q, K or V;
// "S at batch 0, token 0, key 1 is now 8" for a score), the rest counted, so the sentence stays short.
export function describeChanges(before: Evidence, after: Evidence): Changes {
  const sameShapes = results.every(([key]) => before[key].shape_text === after[key].shape_text);
  if (!sameShapes) {
    const shapes = results.map(([key, name]) => `${name} ${after[key].shape_text}`).join(', ');
    return { message: `Recomputed at the new sizes: ${shapes}; the gradients too. The numerical checks follow.`, cells: [] };
  }
  const sentences: string[] = [];
  let unnamed = 0;
  const cells: ChangedCell[] = [];
  for (const [key, name] of results) {
    const changes: string[] = [];
    const { shape, text } = after[key];
    const width = shape.length ? shape[shape.length - 1] : 0;
    let index = 0;
    for (const row of rowLabels(shape)) {
      const columns = text.slice(index, index + width);
      const changed = columns.map((cell, column) => (cell !== before[key].text[index + column] ? column : -1)).filter((column) => column >= 0);
      for (const column of changed) cells.push({ key, index: index + column });
      if (changed.length && key !== 'scores') changes.push(`${name} at ${row.name} is now [${columns.join(', ')}]`);
      if (key === 'scores') for (const column of changed) changes.push(`${name} at ${row.name}, key ${column} is now ${columns[column]}`);
      index += width;
    }
    if (!changes.length) continue;
    sentences.push(changes[0]);
    unnamed += changes.length - 1;
  }
  if (!sentences.length) return { message: 'Recomputed: Q, K, V and S are unchanged. The numerical checks follow.', cells };
  const more = unnamed ? `; ${unnamed} more rows and scores changed` : '';
  return { message: `Recomputed. ${sentences.join('; ')}${more}. The numerical checks follow.`, cells };
}
