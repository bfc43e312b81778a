// A node:test reporter for the gate (scripts/test.sh): each test file's wall-clock seconds, slowest first, so the
// step table can name where the pool's time goes. A file runs in a process of its own; its "complete" event
// carries the file's whole duration, its before/after hooks included.
import { relative } from 'node:path';

export default async function* fileTimes(source) {
  const seconds = new Map();
  for await (const event of source) {
    const { name, file, details } = event.data ?? {};
    if (event.type === 'test:complete' && file && name === file) {
      seconds.set(relative(process.cwd(), file), (details?.duration_ms ?? 0) / 1000);
    }
  }
  const rows = [...seconds].sort(([, a], [, b]) => b - a);
  for (const [file, s] of rows) yield `${s.toFixed(0).padStart(6)}s  ${file}\n`;
}
