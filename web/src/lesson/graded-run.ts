// A graded run's options (passing-score, attempts, graded-questions) as the core grades with them, and what is
// said of a value that cannot be used: the attribute's own problem (attributes.ts) or the core's message (a pass
// mark out of range, too many attempts, an id that is not a question shown), on the console once and in
// data-<name>-error. A refused value is left out, so its default stands (docs/course-authors.md "Graded practice").
import { attributeProblem, gradingAttributes, type GradingAttribute, type LessonAttributes } from './attributes';
import type { AnswerRequest, OutcomeRequest, OutcomeResponse, QuestionStandingView } from './core-api';

export type GradingOptions = Omit<OutcomeRequest, 'questions'>;

const errorKey = { 'passing-score': 'passingScoreError', attempts: 'attemptsError', 'graded-questions': 'gradedQuestionsError' } as const;
const defaultKept: Record<GradingAttribute, string> = {
  'passing-score': 'the default pass mark is used',
  attempts: 'checks are unlimited',
  'graded-questions': 'every question shown counts',
};

// What one attribute asks of the core: its text, which the core reads as it reads answers (nothing when absent).
function optionOf(lesson: LessonAttributes, name: GradingAttribute): GradingOptions {
  if (name === 'passing-score') return lesson.passingScore === null ? {} : { passing_percent: lesson.passingScore };
  if (name === 'attempts') return lesson.attempts === null ? {} : { attempts: lesson.attempts };
  return lesson.gradedQuestions === null ? {} : { graded: lesson.gradedQuestions };
}

export class GradedRun {
  /** A launcher's passing fraction from the LMS (exact, 0 to 1): it wins over passing-score. */
  passingFraction: number | null = null;

  constructor(
    private readonly lesson: LessonAttributes,
    private readonly grade: (questions: QuestionStandingView[], options: GradingOptions) => OutcomeResponse,
  ) {}

  // Each attribute against its own rules, then the core's for the questions shown; a problem is said once.
  check(questions: QuestionStandingView[]): void {
    for (const name of gradingAttributes) {
      const value = this.lesson.getAttribute(name);
      let problem = attributeProblem(name, value);
      if (value !== null && !problem) {
        const graded = this.grade(questions, optionOf(this.lesson, name));
        if (!graded.ok) problem = `${name}="${value.slice(0, 200)}": ${graded.error.message}; ${defaultKept[name]}.`;
      }
      const key = errorKey[name];
      if (problem && problem !== this.lesson.dataset[key]) console.warn(`<qkv-lesson>: ${problem}`);
      if (problem) this.lesson.dataset[key] = problem;
      else delete this.lesson.dataset[key];
    }
  }

  // The options the core grades with: the attributes not refused, a launcher's fraction over the author's percent.
  options(): GradingOptions {
    const accepted = gradingAttributes.filter((name) => this.lesson.dataset[errorKey[name]] === undefined);
    const { passing_percent, ...options }: GradingOptions = Object.assign({}, ...accepted.map((name) => optionOf(this.lesson, name)));
    if (this.passingFraction !== null) return { ...options, passing: this.passingFraction };
    return passing_percent === undefined ? options : { ...options, passing_percent };
  }

  // What a check request needs for the core to apply the allowance: the attempts attribute as the core reads it
  // and the ids that count, asked each time (so it holds before check() has run, as when saved answers are
  // replayed). Which questions the allowance limits is the core's rule (attempts_allowed_for in mastery.hpp).
  allowance(): Pick<AnswerRequest, 'attempts_allowed' | 'graded'> {
    const { graded, attempts } = this.options();
    const read = attempts === undefined ? null : this.grade([], { attempts });
    return { ...(read?.ok ? { attempts_allowed: read.attempts } : {}), ...(graded ? { graded } : {}) };
  }

  /** A graded run: an attempt's key, a launcher's pass mark or any of the grading attributes. */
  get active(): boolean {
    return this.lesson.attemptKey !== '' || this.passingFraction !== null || gradingAttributes.some((name) => this.lesson.hasAttribute(name));
  }
}
