// Answer statements for course pages: an xAPI 1.0.3 statement per check, sent as a DOM event and, inside an
// iframe, as a postMessage to the parent. The host adds the actor (and, if it keeps one, the registration).
import type { AnswerRecord } from './exercises';

export const answerEvent = 'qkv-lesson-answer';
export const answerMessageType = 'qkv-lesson:answer';

type LanguageMap = Record<string, string>;

export interface AnswerStatement {
  verb: { id: string; display: LanguageMap };
  object: {
    id: string;
    objectType: 'Activity';
    definition: {
      name: LanguageMap;
      description: LanguageMap;
      type: 'http://adlnet.gov/expapi/activities/cmi.interaction';
      interactionType: 'choice' | 'fill-in' | 'long-fill-in';
      choices?: { id: string; description: LanguageMap }[];
      correctResponsesPattern?: string[];
    };
  };
  result: {
    success?: boolean;
    completion: true;
    response: string;
    duration: string;
    score?: { raw: number; min: number; max: number; scaled: number };
    extensions: Record<string, unknown>;
  };
  context: { extensions: Record<string, unknown> };
  timestamp: string;
}

// Extensions (IRIs the lesson owns): what the core read from each response ("18" for "1.8e1"), whether the
// response matched the answer (also when it does not count as a success), the attempt number, and whether
// the answer had been shown before the check.
export const readExtension = 'urn:qkv-lesson:read';
export const matchedExtension = 'urn:qkv-lesson:matched';
export const attemptExtension = 'urn:qkv-lesson:attempt';
export const revealedExtension = 'urn:qkv-lesson:revealed';

// The free-text challenge: not graded, reported as a long-fill-in response.
export const challengeId = 'qkv04-challenge';

const answered = { id: 'http://adlnet.gov/expapi/verbs/answered', display: { 'en-US': 'answered' } };
const interaction = 'http://adlnet.gov/expapi/activities/cmi.interaction' as const;

// xAPI joins several responses with "[,]".
const joined = (parts: string[]) => parts.join('[,]');

// ISO 8601 duration in seconds, to the hundredth (as SCORM's timeinterval keeps it).
export function isoDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 10) / 100); // clock time, not lesson numbers
  return `PT${seconds}S`;
}

export function answerStatement(record: AnswerRecord, at = new Date()): AnswerStatement {
  // A check after the answer was shown is never a success, even when it matches.
  const success = record.correct && !record.revealed;
  const name = { 'en-US': record.question };
  return {
    verb: answered,
    object: {
      id: `urn:qkv-lesson:exercise:${record.id}`,
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
    context: { extensions: { [attemptExtension]: record.attempt, [revealedExtension]: record.revealed } },
    timestamp: at.toISOString(),
  };
}

// The challenge's text, when the learner leaves the box after changing it: a response with no verdict.
export function challengeStatement(question: string, text: string, durationMs: number, attempt: number, revealed: boolean, at = new Date()): AnswerStatement {
  const name = { 'en-US': question };
  return {
    verb: answered,
    object: {
      id: `urn:qkv-lesson:exercise:${challengeId}`,
      objectType: 'Activity',
      definition: { name, description: name, type: interaction, interactionType: 'long-fill-in' },
    },
    result: { completion: true, response: text, duration: isoDuration(durationMs), extensions: {} },
    context: { extensions: { [attemptExtension]: attempt, [revealedExtension]: revealed } },
    timestamp: at.toISOString(),
  };
}
