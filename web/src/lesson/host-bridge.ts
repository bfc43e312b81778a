// Where the lesson meets the page that hosts it: the page URL (a shareable link), local storage (progress
// kept across reloads) and messages to a parent frame (answer statements). Timers it starts, it cancels.
import { answerMessageType, type AnswerStatement } from './answers';
import { keptText } from './saved-text';
import { answerTarget } from './embed-protocol';
import { linkFromUrl, linkLimit, linkTarget, readDiagramLink, selfScoreFromSearch } from './url-state';
import type { ExerciseProgress } from './exercises';
import type { SelfScoreRequest } from './types';

export type SavedProgress = Partial<ExerciseProgress> & { responses: string[] };

// Saved work as a course gave it back (storage or an LMS): only the shapes the lesson writes are read, and
// anything else is ignored (null), never trusted. Older saves hold only responses and correct.
export function readSavedProgress(value: unknown): SavedProgress | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const saved = value as Record<string, unknown>;
  const responses = saved.responses;
  if (!Array.isArray(responses) || responses.length > 64 || !responses.every((item) => typeof item === 'string')) return null;
  const attempts = saved.attempts;
  return {
    responses: (responses as string[]).map(keptText),
    ...(typeof attempts === 'number' && Number.isInteger(attempts) && attempts >= 0 && attempts <= 1e6 ? { attempts } : {}),
    ...(saved.revealed === true ? { revealed: true } : {}),
    ...(typeof saved.counts === 'boolean' ? { counts: saved.counts } : {}),
  };
}

export interface HostSettings {
  linkPrefix(): string | null; // the lesson's parameter names in the page URL (url-state.ts's linkPrefixFor); null: sync-url off
  progressKey(): string;
  parentOrigin(): string | null; // the attribute as written; embed-protocol reads it
  notKept(words: string): void; // the learner's answers are not being kept in this browser: said once, in the lesson
}

// Which lesson keeps its answers under which progress-key. A module's state is per realm, so this is per document:
// two lessons of one page under one key would overwrite each other's answers, and the second is refused it.
const keyOwners = new Map<string, HostBridge>();

// The name a failed storage call threw (QuotaExceededError, SecurityError), for the learner's note.
const errorName = (error: unknown): string => (error instanceof Error && error.name !== 'Error' ? error.name : String(error));

export class HostBridge {
  private urlTimer?: ReturnType<typeof setTimeout>;
  // The lesson's part of the link last written, and the listener that puts it back after a jump to an anchor.
  private written = '';
  private watchingHash = false;
  private ownKey = ''; // the progress-key this lesson keeps its answers under: '' for none, or another lesson's
  private notKeptSaid = false;

  constructor(private readonly settings: HostSettings) {}

  // The lesson part of the page's own link (query and fragment) when it says anything about the diagram, for
  // the controller to read: a link it does not read is refused in words, and shows the fixture, not the
  // `state` attribute, as a link the core refuses does.
  linkState(): string | null {
    const link = this.pageLink();
    return link === null || readDiagramLink(link).kind === 'none' ? null : link;
  }

  linkSelfScore(defaults: SelfScoreRequest): SelfScoreRequest | null {
    const link = this.pageLink();
    return link === null ? null : selfScoreFromSearch(link, defaults);
  }

  // The lesson's part of the page URL, in bare names; null without sync-url. Only the lesson's own parameters
  // are read: a course page's t=120 is not the lesson's t.
  private pageLink(): string | null {
    const prefix = this.settings.linkPrefix();
    return prefix === null ? null : linkFromUrl(location.search, location.hash, prefix);
  }

  // Writes the link once typing pauses (browsers throttle rapid history updates, and the write need not
  // delay the diagram), keeping the host page's own parameters and fragment; `written` runs once the URL
  // shows this state. A state longer than linkLimit (cells of thousands of digits) is not put in the link: the
  // link then holds the self-score settings and sizes only, never a link the lesson would refuse.
  // `link(cells)`: the lesson's part of the link (controller.link), with or without the cell lists.
  scheduleUrl(link: (cells: boolean) => string, written: () => void): void {
    if (this.settings.linkPrefix() === null) return;
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(() => {
      const lesson = link(true);
      this.write(lesson.length <= linkLimit ? lesson : link(false));
      written();
    }, 150);
  }

  private write(lesson: string): void {
    const prefix = this.settings.linkPrefix();
    if (prefix === null) return;
    this.written = lesson;
    history.replaceState(history.state, '', linkTarget(location, lesson, prefix));
    if (!this.watchingHash && typeof addEventListener === 'function') {
      addEventListener('hashchange', this.onHashChange);
      this.watchingHash = true;
    }
  }

  // A jump to an anchor (the host page's table of contents, say) replaces the whole fragment: when the numbers
  // were there, they are written again beside the new anchor. A fragment with numbers of its own is left as is.
  private readonly onHashChange = (): void => {
    const prefix = this.settings.linkPrefix();
    if (this.written && prefix !== null && linkFromUrl('', location.hash, prefix) === '') this.write(this.written);
  };

  // Takes the progress-key for this lesson; null when it is this lesson's now (or none is set), else why it is not,
  // in words: another lesson on this page has it. Such a lesson neither restores nor keeps answers (restoring
  // would show the other lesson's answers as this one's, keeping would overwrite them), and its learner is told.
  claimProgressKey(): string | null {
    const key = this.settings.progressKey();
    if (key === this.ownKey) return null;
    this.releaseProgressKey();
    if (!key) return null;
    if (keyOwners.has(key)) {
      const problem = `progress-key="${key}" is already used by another lesson on this page; this lesson's answers are not kept, so that they do not overwrite the other's (give each lesson its own key).`;
      this.sayNotKept('another lesson on this page keeps its answers under the same name');
      return problem;
    }
    keyOwners.set(key, this);
    this.ownKey = key;
    return null;
  }

  private releaseProgressKey(): void {
    if (this.ownKey && keyOwners.get(this.ownKey) === this) keyOwners.delete(this.ownKey);
    this.ownKey = '';
  }

  // Once per lesson, whatever fails after: no flood of notes, and nothing retried in a loop.
  private sayNotKept(why: string): void {
    if (this.notKeptSaid) return;
    this.notKeptSaid = true;
    this.settings.notKept(`Your answers are not being kept in this browser: ${why}. They count while this page is open, and will be gone after a reload.`);
  }

  // Every storage call is caught (storage full, blocked, or a getter that throws): the answer still counts for
  // this visit, and the learner is told once that it is not kept.
  private store(name: string, text: string): void {
    const key = this.ownKey;
    if (!key) return;
    try {
      localStorage.setItem(`${key}:${name}`, text);
    } catch (error) {
      this.sayNotKept(`the browser refused to store them (${errorName(error)})`);
    }
  }

  private stored(name: string): string | null {
    const key = this.ownKey;
    if (!key) return null;
    try {
      return localStorage.getItem(`${key}:${name}`);
    } catch (error) {
      this.sayNotKept(`the browser's storage cannot be read here (${errorName(error)})`);
      return null;
    }
  }

  saveProgress(id: string, progress: ExerciseProgress): void {
    this.store(id, JSON.stringify(progress));
  }

  // What was saved for an exercise (or the challenge), if anything was and it is readable.
  savedProgress(id: string): SavedProgress | null {
    const text = this.stored(id);
    if (text === null) return null;
    try {
      return readSavedProgress(JSON.parse(text));
    } catch {
      return null; // unreadable: start without that saved answer
    }
  }

  // The attempt's xAPI registration, kept beside the answers so that a reload continues the same attempt.
  saveRegistration(registration: string): void {
    this.store('registration', registration);
  }

  savedRegistration(): string | undefined {
    return this.stored('registration') ?? undefined;
  }

  // Start over: everything kept under this lesson's progress-key (every answer, the challenge, the registration)
  // is removed. Returns false when the storage refused (the learner is told, as for any refusal).
  forgetProgress(): boolean {
    const key = this.ownKey;
    if (!key) return true;
    try {
      const names = Array.from({ length: localStorage.length }, (_, i) => localStorage.key(i)).filter((name): name is string => name?.startsWith(`${key}:`) ?? false);
      for (const name of names) localStorage.removeItem(name);
      return true;
    } catch (error) {
      this.sayNotKept(`the browser's storage cannot be changed here (${errorName(error)})`);
      return false;
    }
  }

  postAnswer(statement: AnswerStatement): void {
    const target = answerTarget(this.settings.parentOrigin());
    if (target) window.parent.postMessage({ type: answerMessageType, statement }, target);
  }

  cancel(): void {
    clearTimeout(this.urlTimer);
    this.releaseProgressKey();
    if (this.watchingHash) removeEventListener('hashchange', this.onHashChange);
    this.watchingHash = false;
  }
}
