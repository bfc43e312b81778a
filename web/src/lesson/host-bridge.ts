// Where the lesson meets the page that hosts it: the page URL (a shareable link), local storage (progress
// kept across reloads) and messages to a parent frame (answer statements). Timers it starts, it cancels.
import { answerMessageType, type AnswerStatement } from './answers';
import { answerTarget } from './embed-protocol';
import { selfScoreFromSearch, stateFromSearch, stateToSearch, withLessonParams } from './url-state';
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
  };
}

export interface HostSettings {
  syncUrl(): boolean;
  progressKey(): string;
  parentOrigin(): string | null; // the attribute as written; embed-protocol reads it
}

export class HostBridge {
  private urlTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly settings: HostSettings) {}

  // The lesson state of the page's own link, when the lesson keeps its numbers there.
  linkState(): string | null {
    return this.settings.syncUrl() && stateFromSearch(location.search) ? location.search : null;
  }

  linkSelfScore(defaults: SelfScoreRequest): SelfScoreRequest | null {
    return this.settings.syncUrl() ? selfScoreFromSearch(location.search, defaults) : null;
  }

  // Writes the link once typing pauses (browsers throttle rapid history updates, and the write need not
  // delay the diagram), keeping the host page's own parameters; `written` runs once the URL shows this state.
  scheduleUrl(state: LessonState, selfScore: SelfScoreRequest, written: () => void): void {
    if (!this.settings.syncUrl()) return;
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(() => {
      history.replaceState(history.state, '', `?${withLessonParams(location.search, stateToSearch(state, selfScore))}${location.hash}`);
      written();
    }, 150);
  }

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
  }
}
