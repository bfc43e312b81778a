// The page's one list joiner. Not in dom.ts: url-state.ts uses it too and must load without the DOM (and
// without dom.ts's build-time formulas), in workers and in the Node tests.

/** Words joined as a sentence lists them: "a", "a and b", "a, b and c" (or "or"). */
export function joinWords(words: string[], conjunction: 'and' | 'or'): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}
