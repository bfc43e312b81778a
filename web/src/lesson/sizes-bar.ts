// The sizes bar above the diagram: the four sizes with the limits the core accepts, Reset, and the three
// places where the lesson speaks about them: a rejected size, notes on numbers a link gave, and the polite
// live region that announces each recomputation once typing pauses.
import { h } from './dom';
import { sizeFields, type LessonState, type SizeField, type SizeLimitView } from './types';

const sizeLabels: Record<SizeField, string> = {
  batch: 'Batch B',
  tokens: 'Tokens T',
  model_width: 'Model width d_model',
  head_width: 'Head width d_head',
};

export interface SizesBar {
  element: HTMLElement;
  inputs: Readonly<Record<SizeField, HTMLInputElement>>;
  // Where a rejected size's message goes (and any message without a field of its own).
  error: HTMLElement;
  // The accepted sizes, except in the field the learner is typing in.
  showSizes(state: LessonState): void;
  showNotes(notes: string[]): void;
  // What Reset goes back to: the fixture, or an author's example.
  resetTo(whose: 'fixture' | 'example'): void;
  // Polite and debounced: one announcement after typing pauses, not one per keystroke; shown in the status line.
  announce(message: string): void;
  // The same for a message that repeats what is on screen already (a link's note, a rejection beside its field,
  // a question's verdict): for screen readers only.
  readOut(message: string): void;
  cancel(): void;
}

// Each size says what it accepts; the limits are the core's (cpp/learner/editable_state.hpp).
export function buildSizesBar(idPrefix: string, limits: SizeLimitView[], onReset: () => void): SizesBar {
  const error = h('p', { class: 'field-error', id: `${idPrefix}-error-sizes`, hidden: true });
  const notes = h('ul', { class: 'link-notes', hidden: true });
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const inputs = {} as Record<SizeField, HTMLInputElement>;
  const fields = sizeFields.map((field) => {
    const id = `${idPrefix}-size-${field}`;
    const limit = limits.find((candidate) => candidate.field === field);
    const input = h('input', { id, type: 'text', inputmode: 'numeric', autocomplete: 'off', 'data-size': field, 'aria-describedby': error.id });
    inputs[field] = input;
    return h('p', { class: 'size' }, h('label', { for: id }, limit ? `${sizeLabels[field]} (${limit.min} to ${limit.max})` : sizeLabels[field]), input);
  });
  const reset = h('button', { type: 'button', class: 'reset' }, 'Reset to the fixture');
  reset.addEventListener('click', onReset);
  let announceTimer: ReturnType<typeof setTimeout> | undefined;
  const speak = (message: string, visible: boolean) => {
    clearTimeout(announceTimer);
    announceTimer = setTimeout(() => {
      status.classList.toggle('visually-hidden', !visible);
      status.textContent = message;
    }, 400);
  };
  return {
    // A group named by a span, not a fieldset's legend: WebKit draws a legend laid out in the row across the
    // fieldset's border, on a second line (the bar took 81 px of a 768 px screen).
    element: h(
      'div',
      { class: 'controls' },
      h('div', { class: 'sizes', role: 'group', 'aria-labelledby': `${idPrefix}-sizes-title` }, h('span', { class: 'sizes-title', id: `${idPrefix}-sizes-title` }, 'Sizes (edit any cell below too)'), ...fields, reset),
      error,
      notes,
      status,
    ),
    inputs,
    error,
    showSizes(state) {
      for (const field of sizeFields) {
        const input = inputs[field];
        if (!input.matches(':focus') && input.value !== state[field]) input.value = state[field];
      }
    },
    resetTo(whose) {
      reset.textContent = `Reset to the ${whose}`;
    },
    showNotes(list) {
      notes.hidden = list.length === 0;
      notes.replaceChildren(...list.map((note) => h('li', {}, note)));
    },
    announce: (message) => speak(message, true),
    readOut: (message) => speak(message, false),
    cancel() {
      clearTimeout(announceTimer);
    },
  };
}
