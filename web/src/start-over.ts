// The standalone page's "Start over": the page keeps the learner's work under its progress-key (index.html), and
// this control clears it. A first press says what will be cleared and asks; "Clear them" forgets what is kept,
// then reloads the page at its bare address (the numbers in the link go too); after the reload the page says what
// was cleared. Course embeds have no such control: their progress-key is the course's to manage.
import type { QkvLessonElement } from './lesson/element';

// Carries "it was cleared" across the reload, for the status line (this tab only).
const startedOverFlag = 'qkv-lesson-page:started-over';

function readFlag(): boolean {
  try {
    const set = sessionStorage.getItem(startedOverFlag) !== null;
    sessionStorage.removeItem(startedOverFlag);
    return set;
  } catch {
    return false; // no session storage: the page only misses its note
  }
}

function setFlag(): void {
  try {
    sessionStorage.setItem(startedOverFlag, '1');
  } catch {
    // no session storage: the page only misses its note
  }
}

export function offerStartOver(lesson: QkvLessonElement, control: HTMLElement): void {
  const ask = control.querySelector<HTMLButtonElement>('.start-over-ask')!;
  const confirm = control.querySelector<HTMLElement>('#start-over-confirm')!;
  const status = control.querySelector<HTMLElement>('.start-over-status')!;
  const showConfirm = (shown: boolean) => {
    confirm.hidden = !shown;
    ask.setAttribute('aria-expanded', String(shown));
  };
  ask.addEventListener('click', () => showConfirm(confirm.hidden));
  control.querySelector('.start-over-keep')!.addEventListener('click', () => {
    showConfirm(false);
    ask.focus();
  });
  control.querySelector('.start-over-clear')!.addEventListener('click', () => {
    if (!lesson.forgetKeptProgress()) {
      status.textContent = 'Nothing was cleared: this browser refused to change its storage (the lesson says why at its top).';
      return;
    }
    setFlag();
    location.replace(location.pathname);
  });
  if (readFlag()) status.textContent = 'Started over: your answers, the challenge’s text and the numbers you changed were cleared.';
  ask.disabled = false; // on screen since the first paint (index.html), working from now
}
