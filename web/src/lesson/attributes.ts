// The element's attributes as course authors write them: the values each takes, and what is said (on the
// console and in data-<name>-error) about a value the element does not know.
import type { Reveal } from './exercises';

export const sectionNames = ['prediction', 'rule', 'diagram', 'scale', 'exercises', 'self-bias', 'next'] as const;
export type SectionName = (typeof sectionNames)[number];
export const reveals: readonly Reveal[] = ['after-check', 'never', 'always'];
const themes = ['light', 'dark'] as const;

// An attribute value the element does not know: what it says on the console and in data-<name>-error.
export function attributeProblem(name: string, value: string | null): string | null {
  if (value === null) return null;
  if (name === 'sections') {
    const unknown = value.split(/[\s,]+/).filter((word) => word && !(sectionNames as readonly string[]).includes(word));
    if (unknown.length === 0) return value.trim() === '' ? 'sections="" names no section: every section is shown.' : null;
    return `sections names ${unknown.map((word) => `"${word}"`).join(', ')}, which ${unknown.length > 1 ? 'are not sections' : 'is not a section'}; the sections are ${sectionNames.join(' ')}. ${
      value.split(/[\s,]+/).some((word) => (sectionNames as readonly string[]).includes(word)) ? 'The others are shown.' : 'Every section is shown.'
    }`;
  }
  if (name === 'reveal' && !(reveals as readonly string[]).includes(value))
    return `reveal="${value}" is not one of ${reveals.join(', ')}; after-check is used.`;
  if (name === 'theme' && !(themes as readonly string[]).includes(value) && value !== '' && value !== 'auto')
    return `theme="${value}" is not light, dark or auto; the learner's system setting decides.`;
  return null;
}
