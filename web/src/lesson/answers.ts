// xAPI 1.0.3 statements for course pages: one per check, one when an answer is shown, and the lesson's own
// (initialized, completed, passed or failed, terminated), sent as a DOM event and, inside an iframe, as a
// postMessage to the parent. The host adds the actor. Every statement has an id, the attempt's registration,
// and context activities naming the lesson and the page that embeds it, so that an LRS can group them.
import type { AnswerRecord, ShownBy } from './exercises';

export const answerEvent = 'qkv-lesson-answer';
export const answerMessageType = 'qkv-lesson:answer';

/** An xAPI language map, e.g. { 'en-US': '…' }. */
export type LanguageMap = Record<string, string>;

/** An activity named in a statement's context. */
export interface ActivityRef {
  id: string;
  objectType: 'Activity';
  definition?: { type: string; name?: LanguageMap };
}

/**
 * An xAPI 1.0.3 statement without actor (the course adds its own): the qkv-lesson-answer event's detail, and the
 * `statement` of { type: 'qkv-lesson:answer', statement } posted to a parent frame. One per check (verb answered),
 * one when an answer is shown before the learner got it right (verb http://id.tincanapi.com/verb/viewed, object
 * "<question>/answer"), and the lesson's own (initialized, completed, passed, failed, terminated). Every one has an
 * id, the attempt's registration, and contextActivities (parent: the lesson; grouping: the embedding page).
 * Extensions: result 'urn:qkv-lesson:read' and 'urn:qkv-lesson:matched'; context 'urn:qkv-lesson:exercise' (the
 * exercise id), 'urn:qkv-lesson:attempt', 'urn:qkv-lesson:revealed' and 'urn:qkv-lesson:shown-by'.
 * docs/statements.md has every field.
 */
export interface AnswerStatement {
  /** A UUID, new for each statement. */
  id: string;
  verb: { id: string; display: LanguageMap };
  object: {
    id: string;
    objectType: 'Activity';
    definition: {
      name: LanguageMap;
      description?: LanguageMap;
      type: string;
      interactionType?: 'choice' | 'fill-in' | 'long-fill-in';
      choices?: { id: string; description: LanguageMap }[];
      correctResponsesPattern?: string[];
    };
  };
  result?: {
    /** The core's verdict: matched, and the answer was not shown first. Absent for the ungraded challenge. */
    success?: boolean;
    completion?: boolean;
    /** What the learner typed or chose; several responses joined with "[,]". */
    response?: string;
    /** ISO 8601, e.g. PT12.5S. */
    duration?: string;
    score?: { raw: number; min: number; max: number; scaled: number };
    extensions?: Record<string, unknown>;
  };
  context: {
    registration: string;
    contextActivities: { parent?: ActivityRef[]; grouping?: ActivityRef[] };
    extensions?: Record<string, unknown>;
  };
  timestamp: string;
}

// Where a lesson's statements belong: its activity IRI (a question's is `${activityId}/exercise/<id>`), the
// attempt's registration, and the page that embeds it (absent when it is not a web page).
export interface StatementContext {
  activityId: string;
  registration: string;
  pageId: string | null;
}

// Extensions (IRIs the lesson owns): what the core read from each response ("18" for "1.8e1"), whether the
// response matched the answer (also when it does not count as a success), the attempt number, and whether
// the answer had been shown before the check.
export const readExtension = 'urn:qkv-lesson:read';
export const matchedExtension = 'urn:qkv-lesson:matched';
export const attemptExtension = 'urn:qkv-lesson:attempt';
export const revealedExtension = 'urn:qkv-lesson:revealed';
// The exercise a statement is about (ids never change; an activity IRI depends on where the lesson is embedded).
export const exerciseExtension = 'urn:qkv-lesson:exercise';
// Who showed an answer before the learner got it right: 'learner' or 'lesson'.
export const shownByExtension = 'urn:qkv-lesson:shown-by';

// The free-text challenge: not graded, reported as a long-fill-in response.
export const challengeId = 'qkv04-challenge';

const verb = (id: string, word: string) => ({ id, display: { 'en-US': word } });
const answered = verb('http://adlnet.gov/expapi/verbs/answered', 'answered');
export const viewedVerb = 'http://id.tincanapi.com/verb/viewed';
const interaction = 'http://adlnet.gov/expapi/activities/cmi.interaction';
const lessonType = 'http://adlnet.gov/expapi/activities/lesson';
const lessonName = { 'en-US': 'Query, key and value views' };

export const exerciseActivityId = (where: StatementContext, exercise: string) => `${where.activityId}/exercise/${encodeURIComponent(exercise)}`;

// A version 4 UUID from the platform's random source (crypto.randomUUID needs a secure context; this does not).
export function randomUuid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// The registration, the lesson (and, for a question, the lesson as its parent), the embedding page.
function contextOf(where: StatementContext, parents: ActivityRef[], extensions?: Record<string, unknown>): AnswerStatement['context'] {
  const grouping: ActivityRef[] = where.pageId ? [{ id: where.pageId, objectType: 'Activity' }] : [];
  return {
    registration: where.registration,
    contextActivities: { ...(parents.length ? { parent: parents } : {}), ...(grouping.length ? { grouping } : {}) },
    ...(extensions ? { extensions } : {}),
  };
}

const lessonActivity = (where: StatementContext): ActivityRef => ({ id: where.activityId, objectType: 'Activity', definition: { type: lessonType, name: lessonName } });

// xAPI joins several responses with "[,]".
const joined = (parts: string[]) => parts.join('[,]');

// ISO 8601 duration in seconds, to the hundredth (as SCORM's timeinterval keeps it).
export function isoDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 10) / 100); // clock time, not lesson numbers
  return `PT${seconds}S`;
}

export function answerStatement(record: AnswerRecord, where: StatementContext, at = new Date()): AnswerStatement {
  // The core's verdict: a check after the answer was shown is never a success, even when it matches.
  const success = record.counts;
  const name = { 'en-US': record.question };
  return {
    id: randomUuid(),
    verb: answered,
    object: {
      id: exerciseActivityId(where, record.id),
      objectType: 'Activity',
      definition: {
        name,
        description: name,
        type: interaction,
        interactionType: record.interaction,
        ...(record.interaction === 'choice' ? { choices: record.choices.map(({ id, text }) => ({ id, description: { 'en-US': text } })) } : {}),
        correctResponsesPattern: [joined(record.correctResponse)],
      },
    },
    result: {
      success,
      completion: true,
      response: joined(record.typed),
      duration: isoDuration(record.durationMs),
      score: success ? { raw: 1, min: 0, max: 1, scaled: 1 } : { raw: 0, min: 0, max: 1, scaled: 0 },
      extensions: { [readExtension]: record.read, [matchedExtension]: record.correct },
    },
    context: contextOf(where, [lessonActivity(where)], {
      [exerciseExtension]: record.id,
      [attemptExtension]: record.attempt,
      [revealedExtension]: record.revealed,
    }),
    timestamp: at.toISOString(),
  };
}

// An answer shown before the learner got it right, by their request or by the lesson after wrong checks: the
// learner viewed the question's answer (a part of the question's activity). Recorded even when no check follows.
export function shownStatement(exercise: string, question: string, by: ShownBy, where: StatementContext, at = new Date()): AnswerStatement {
  const questionId = exerciseActivityId(where, exercise);
  return {
    id: randomUuid(),
    verb: verb(viewedVerb, 'viewed'),
    object: {
      id: `${questionId}/answer`,
      objectType: 'Activity',
      definition: { name: { 'en-US': `The answer to: ${question}` }, type: 'http://id.tincanapi.com/activitytype/solution' },
    },
    context: contextOf(where, [{ id: questionId, objectType: 'Activity' }, lessonActivity(where)], {
      [exerciseExtension]: exercise,
      [shownByExtension]: by,
    }),
    timestamp: at.toISOString(),
  };
}

// The challenge's text, when the learner leaves the box after changing it: a response with no verdict.
export function challengeStatement(question: string, text: string, durationMs: number, attempt: number, revealed: boolean, where: StatementContext, at = new Date()): AnswerStatement {
  const name = { 'en-US': question };
  return {
    id: randomUuid(),
    verb: answered,
    object: {
      id: exerciseActivityId(where, challengeId),
      objectType: 'Activity',
      definition: { name, description: name, type: interaction, interactionType: 'long-fill-in' },
    },
    result: { completion: true, response: text, duration: isoDuration(durationMs), extensions: {} },
    context: contextOf(where, [lessonActivity(where)], { [exerciseExtension]: challengeId, [attemptExtension]: attempt, [revealedExtension]: revealed }),
    timestamp: at.toISOString(),
  };
}

// The lesson's own statements, about the lesson activity: initialized at ready, completed and passed or failed
// once every question shown is settled (with the core's score), terminated when the learner leaves.
export type LessonVerb = 'initialized' | 'completed' | 'passed' | 'failed' | 'terminated';
export interface LessonScore {
  scaled: number;
  percent: number;
  passed: boolean;
}

export function lessonStatement(word: LessonVerb, where: StatementContext, score?: LessonScore, durationMs?: number, at = new Date()): AnswerStatement {
  const result = {
    ...(score ? { score: { raw: score.percent, min: 0, max: 100, scaled: score.scaled } } : {}),
    ...(word === 'passed' || word === 'failed' ? { success: word === 'passed' } : {}),
    ...(word === 'completed' || word === 'passed' || word === 'failed' ? { completion: true } : {}),
    ...(durationMs === undefined ? {} : { duration: isoDuration(durationMs) }),
  };
  return {
    id: randomUuid(),
    verb: verb(`http://adlnet.gov/expapi/verbs/${word}`, word),
    object: { id: where.activityId, objectType: 'Activity', definition: { type: lessonType, name: lessonName } },
    ...(Object.keys(result).length ? { result } : {}),
    context: contextOf(where, []),
    timestamp: at.toISOString(),
  };
}
