// Answer statements for course pages: an xAPI-shaped statement per answered exercise, sent as a DOM event
// and, inside an iframe, as a postMessage to the parent. The host adds the actor.
import type { AnswerRecord } from './exercises';

export const answerEvent = 'qkv-lesson-answer';
export const answerMessageType = 'qkv-lesson:answer';

export interface AnswerStatement {
  verb: { id: string; display: Record<string, string> };
  object: { id: string; objectType: 'Activity'; definition: { name: Record<string, string>; type: string } };
  result: {
    success: boolean;
    response: string;
    score: { raw: number; min: number; max: number; scaled: number };
    extensions: Record<string, string[]>;
  };
}

// What the core read from each response ("18" for "1.8e1"), beside what the learner typed.
export const readExtension = 'urn:qkv-lesson:read';

export function answerStatement(record: AnswerRecord): AnswerStatement {
  const success = record.correct;
  return {
    verb: { id: 'http://adlnet.gov/expapi/verbs/answered', display: { 'en-US': 'answered' } },
    object: {
      id: `urn:qkv-lesson:exercise:${record.id}`,
      objectType: 'Activity',
      definition: { name: { 'en-US': record.question }, type: 'http://adlnet.gov/expapi/activities/cmi.interaction' },
    },
    // xAPI joins several responses with "[,]"; the response is what the learner typed.
    result: {
      success,
      response: record.typed.join('[,]'),
      score: success ? { raw: 1, min: 0, max: 1, scaled: 1 } : { raw: 0, min: 0, max: 1, scaled: 0 },
      extensions: { [readExtension]: record.read },
    },
  };
}
