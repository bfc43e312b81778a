// What a page and the service worker (sw.ts) say to each other about the precache.

// A page asks the worker that controls it to fetch again whatever of the build its precache lacks. Sent with a
// MessagePort, the worker answers on it once the repair is done.
export const repairPrecacheMessage = 'qkv-repair-precache';

// The answer: how many of the build's files the repair fetched and stored, and how many are still missing (the
// network failed for them; 0: the lesson works offline again).
export interface PrecacheRepaired {
  type: typeof repairPrecacheMessage;
  repaired: number;
  missing: number;
}
