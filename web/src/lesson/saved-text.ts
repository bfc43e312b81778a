// How much of one text the lesson keeps: one limit for the challenge box, the blanks, storage, restoreProgress
// and the LMS.

/** The most characters of one text the lesson keeps (the challenge, a blank): the challenge box stops there and
 * says so, and storage, restoreProgress and an LMS's suspend_data give back at most this many. SCORM 2004's
 * suspend_data (64,000) holds a challenge this long even with every character escaped (two each). */
export const savedTextLimit = 20000;

// A saved text as the lesson keeps it: a longer one (an older save, a course's own store) is cut to the limit, as
// the box would have cut it, rather than the whole answer dropped.
export const keptText = (text: string): string => text.slice(0, savedTextLimit);
