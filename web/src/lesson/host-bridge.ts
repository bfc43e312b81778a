// Where the lesson meets the page that hosts it: the page URL (a shareable link), local storage (progress
// kept across reloads) and messages to a parent frame (answer statements). Timers it starts, it cancels.
import { answerMessageType, type AnswerStatement } from './answers';
import { answerTarget } from './embed-protocol';
import { linkFromUrl, linkLimit, linkTarget, readDiagramLink, selfScoreFromSearch, stateToSearch } from './url-state';
import type { ExerciseProgress } from './exercises';
import type { LessonState, SelfScoreRequest } from './types';

export type SavedProgress = Partial<ExerciseProgress> & { responses: string[] };

// Saved work as a course gave it back (storage or an LMS): only the shapes the lesson writes are read, and
// anything else is ignored (null), never trusted. Older saves hold only responses and correct.
export function readSavedProgress(value: unknown): SavedProgress | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const saved = value as Record<string, unknown>;
  const responses = saved.responses;
  if (!Array.isArray(responses) || responses.length > 64 || !responses.every((item) => typeof item === 'string' && item.length <= 20000)) return null;
  const attempts = saved.attempts;
  return {
    responses: [...responses] as string[],
    ...(typeof attempts === 'number' && Number.isInteger(attempts) && attempts >= 0 && attempts <= 1e6 ? { attempts } : {}),
    ...(saved.revealed === true ? { revealed: true } : {}),
    ...(typeof saved.counts === 'boolean' ? { counts: saved.counts } : {}),
  };
}

export interface HostSettings {
  syncUrl(): boolean;
  progressKey(): string;
  parentOrigin(): string | null; // the attribute as written; embed-protocol reads it
}

export class HostBridge {
  private urlTimer?: ReturnType<typeof setTimeout>;
  // The lesson's part of the link last written, and the listener that puts it back after a jump to an anchor.
  private written = '';
  private watchingHash = false;

  constructor(private readonly settings: HostSettings) {}

  // The lesson part of the page's own link (query and fragment) when it says anything about the diagram, for
  // the controller to read: a link it does not read is refused in words, and shows the fixture, not the
  // `state` attribute, as a link the core refuses does.
  linkState(): string | null {
    if (!this.settings.syncUrl()) return null;
    const link = linkFromUrl(location.search, location.hash);
    return readDiagramLink(link).kind === 'none' ? null : link;
  }

  linkSelfScore(defaults: SelfScoreRequest): SelfScoreRequest | null {
    return this.settings.syncUrl() ? selfScoreFromSearch(linkFromUrl(location.search, location.hash), defaults) : null;
  }

  // Writes the link once typing pauses (browsers throttle rapid history updates, and the write need not
  // delay the diagram), keeping the host page's own parameters and fragment; `written` runs once the URL
  // shows this state. A state longer than linkLimit (cells of thousands of digits) is not put in the link: the
  // link then holds the self-score settings and sizes only, never a link the lesson would refuse.
  scheduleUrl(state: LessonState, selfScore: SelfScoreRequest, written: () => void): void {
    if (!this.settings.syncUrl()) return;
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(() => {
      const lesson = stateToSearch(state, selfScore);
      this.write(lesson.length <= linkLimit ? lesson : stateToSearch(state, selfScore, false));
      written();
    }, 150);
  }

  private write(lesson: string): void {
    this.written = lesson;
    history.replaceState(history.state, '', linkTarget(location, lesson));
    if (!this.watchingHash && typeof addEventListener === 'function') {
      addEventListener('hashchange', this.onHashChange);
      this.watchingHash = true;
    }
  }

  // A jump to an anchor (the host page's table of contents, say) replaces the whole fragment: when the numbers
  // were there, they are written again beside the new anchor. A fragment with numbers of its own is left as is.
  private readonly onHashChange = (): void => {
    if (this.written && this.settings.syncUrl() && linkFromUrl('', location.hash) === '') this.write(this.written);
  };

  saveProgress(id: string, progress: ExerciseProgress): void {
    const key = this.settings.progressKey();
    if (!key) return;
    try {
      localStorage.setItem(`${key}:${id}`, JSON.stringify(progress));
    } catch {
      // Storage full or blocked: the answer still counted for this visit.
    }
  }

  // What was saved for an exercise (or the challenge), if anything was and it is readable.
  savedProgress(id: string): SavedProgress | null {
    const key = this.settings.progressKey();
    if (!key) return null;
    try {
      return readSavedProgress(JSON.parse(localStorage.getItem(`${key}:${id}`) ?? 'null'));
    } catch {
      return null; // unreadable or blocked storage: start without saved answers
    }
  }

  postAnswer(statement: AnswerStatement): void {
    const target = answerTarget(this.settings.parentOrigin());
    if (target) window.parent.postMessage({ type: answerMessageType, statement }, target);
  }

  cancel(): void {
    clearTimeout(this.urlTimer);
    if (this.watchingHash) removeEventListener('hashchange', this.onHashChange);
    this.watchingHash = false;
  }
}
