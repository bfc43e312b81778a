// Every file below `dir` that `keep` accepts, in name order (the tree checks of tools/).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function walk(dir, keep) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}
