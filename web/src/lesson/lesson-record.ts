// What a course hears about one attempt at the lesson, beyond each check: the statements' common context (the
// lesson's activity IRI, the attempt's registration, the embedding page), and the lesson's own statements —
// initialized at ready, completed and passed or failed when the core's outcome says so, terminated when the
// learner leaves. The grading itself is the core's (lessonOutcome); this only notices when it changes.
import { lessonStatement, randomUuid, type AnswerStatement, type LessonVerb, type StatementContext } from './answers';
import type { OutcomeResponse } from './core-api';

type Outcome = Omit<Extract<OutcomeResponse, { ok: true }>, 'ok'>;

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

// The page that embeds the lesson, as an activity: its address without query or fragment (those carry a
// learner's state, not the page's identity); null for a page that is not on the web (file:, about:, data:).
export function embeddingPage(href: string): string | null {
  const url = new URL(href);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return `${url.origin}${url.pathname}`;
}

// The lesson's activity IRI when the author gives none: the embedding page's, with a fragment naming the lesson,
// so every course page that embeds it has its own. Off the web, a URN of its own.
export const defaultActivityId = (href: string) => {
  const page = embeddingPage(href);
  return page ? `${page}#qkv-lesson` : 'urn:qkv-lesson:lesson';
};

export class LessonRecord {
  registration = randomUuid();
  private startedAt = 0;
  private reported: { completed: boolean; passed: boolean } = { completed: false, passed: false };
  private terminated = true;

  constructor(
    private readonly activityId: () => string,
    private readonly send: (statement: AnswerStatement) => void,
  ) {}

  get context(): StatementContext {
    return { activityId: this.activityId(), registration: this.registration, pageId: embeddingPage(location.href) };
  }

  // A registration kept with saved progress continues that attempt.
  continueAttempt(registration: string | undefined): void {
    if (registration && uuidPattern.test(registration)) this.registration = registration;
  }

  // The attempt (re)starts on this page: once until the learner leaves.
  begin(): void {
    if (!this.terminated) return;
    this.startedAt = performance.now();
    this.terminated = false;
    this.send(lessonStatement('initialized', this.context));
  }

  // Work restored from an earlier visit was reported then: only changes from here on are.
  restored(outcome: Outcome | null): void {
    if (outcome) this.reported = { completed: outcome.completed, passed: outcome.passed };
  }

  // After each check or shown answer: completed once every question shown is settled; passed or failed then,
  // and again whenever that verdict changes.
  settled(outcome: Outcome): void {
    if (!outcome.completed) return;
    const score = { scaled: outcome.scaled, percent: outcome.percent, passed: outcome.passed };
    const verbs: LessonVerb[] = [];
    if (!this.reported.completed) verbs.push('completed', outcome.passed ? 'passed' : 'failed');
    else if (this.reported.passed !== outcome.passed) verbs.push(outcome.passed ? 'passed' : 'failed');
    for (const word of verbs) this.send(lessonStatement(word, this.context, score));
    this.reported = { completed: true, passed: outcome.passed };
  }

  // The learner left (the page is hidden for good, or the lesson was taken off it): once per initialized.
  leave(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.send(lessonStatement('terminated', this.context, undefined, performance.now() - this.startedAt));
  }
}
