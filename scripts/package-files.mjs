// What the course packages share (scripts/package-scorm.mjs: SCORM 1.2 and 2004; scripts/package-cmi5.mjs: cmi5):
// the course's title and passing fraction, the lesson's licence files, the walk of dist/, the fixed zip date that
// makes the same dist/ give the same bytes, and the command line both take. No top-level await: both import it.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The lesson's licence and notices, which the build writes into dist/ (web/third-party-notices.ts).
export const licenceFiles = ['LICENSE.txt', 'THIRD_PARTY_NOTICES.md'];

export const title = 'Query, key and value views: an interactive lesson';
// The mastery rule's default threshold; the launchers use the LMS's own value when it gives one.
export const passingFraction = 0.8;

export const escapeXml = (text) => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]);

// The dist/ a package is built from (QKV_DIST for another build), checked to hold a built lesson.
export function builtLesson(dist = process.env.QKV_DIST ?? resolve(repo, 'dist')) {
  const folder = resolve(dist);
  for (const file of ['qkv-lesson.js', ...licenceFiles]) {
    if (!existsSync(join(folder, file))) throw new Error(`${folder}/${file} is missing: build the lesson first (npm run build)`);
  }
  return folder;
}
export const defaultOut = resolve(repo, 'dist-packages');

// Every file under `folder`, as paths relative to `root` with '/', sorted.
export async function listFiles(root, folder = root) {
  const out = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(root, path)));
    else if (entry.isFile()) out.push(relative(root, path).split(sep).join('/'));
  }
  return out.sort();
}

// A fixed date for every entry: the same dist/ gives byte-identical zips (zip dates start in 1980).
export const zipDate = new Date(Date.UTC(2026, 0, 1));

// { name: bytes } as a zip, every entry at zipDate.
export const zipOf = (entries) => zipSync(Object.fromEntries(Object.entries(entries).map(([name, data]) => [name, [data, { mtime: zipDate }]])), { level: 9 });

// The command line both scripts take, `[--dist dist] [--out dist-packages]`, when `moduleUrl` is the script run:
// `make` gets the options given and returns what `report` prints.
export async function runAsScript(moduleUrl, make, report) {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
  const args = process.argv.slice(2);
  const option = (name) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? resolve(args[i + 1]) : undefined;
  };
  for (const line of report(await make({ ...(option('dist') && { dist: option('dist') }), ...(option('out') && { out: option('out') }) }))) console.log(line);
}
