// The cmi5 course package (issue 40, item 5), beside the SCORM zips in dist-packages/: cmi5.xml at the zip's root
// (a course of one assignable unit, valid against the cmi5 CourseStructure.xsd, kept in cmi5/), the AU's launch
// page cmi5.html with its launcher cmi5-launch.js (cmi5/cmi5-launch.js bundled by esbuild with @xapi/cmi5, the cmi5
// client library, which only this package ships), launch.css (scorm/scorm.css: the two launch pages look alike),
// every file of dist/, LICENSE.txt, THIRD_PARTY_NOTICES.md (dist/'s, and the launcher's libraries) and
// cmi5/README.md. The same dist/ gives the same bytes.
//   node scripts/package-cmi5.mjs [--dist dist] [--out dist-packages]     (npm run package runs it too)
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { builtLesson, defaultOut, escapeXml, listFiles, passingFraction, repo, runAsScript, title, zipOf } from './package-files.mjs';

const sources = resolve(repo, 'cmi5');
export const cmi5File = 'qkv-lesson-cmi5.zip';
export const launchPage = 'cmi5.html';
export const launcherFile = 'cmi5-launch.js';
// The course's and the AU's ids: IRIs that stay the same from version to version, so an LMS updates the course.
export const courseId = 'urn:qkv-lesson:cmi5:course';
export const auId = 'urn:qkv-lesson:cmi5:au:qkv-lesson';
// moveOn CompletedAndPassed: the lesson is done when every question shown is settled (completed) and the core's
// score reaches the mastery score (passed); the lesson sends both, so the criterion can always be met.
export const moveOn = 'CompletedAndPassed';

const description = 'How Transformer self-attention turns one hidden-state sequence into query, key and value views, with numbers the learner can change, computed by a C++ core in WebAssembly.';

function courseStructure() {
  const text = (value) => `<langstring lang="en-US">${escapeXml(value)}</langstring>`;
  return `<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="${courseId}">
    <title>${text(title)}</title>
    <description>${text(description)}</description>
  </course>
  <au id="${auId}" moveOn="${moveOn}" masteryScore="${passingFraction}" launchMethod="AnyWindow">
    <title>${text(title)}</title>
    <description>${text(description)}</description>
    <url>${launchPage}</url>
  </au>
</courseStructure>
`;
}

// The launcher and the @xapi/cmi5 client it imports, as one ES module; returns { code, packages } where packages
// are the node_modules packages in the bundle and, since the @xapi packages' dist files carry their dependencies
// inlined (@xapi/cmi5's holds @xapi/xapi, axios's browser build, deepmerge and uuid), those too. Not further:
// axios's own dependencies are for Node (its http adapter), which a browser build leaves out.
async function bundleLauncher() {
  const { outputFiles, metafile } = await build({
    entryPoints: [join(sources, launcherFile)],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    legalComments: 'none', // the notices carry the licences in full
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  const direct = Object.keys(metafile.inputs).flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? []);
  // name → undefined (bundled from node_modules) or { parent, range } (inside the parent's build, at a version that
  // build chose within the range it asks for, which need not be the one installed here)
  const packages = new Map(direct.map((name) => [name, undefined]));
  const pending = [...packages.keys()];
  while (pending.length) {
    const name = pending.shift();
    if (!name.startsWith('@xapi/')) continue;
    const { dependencies = {} } = JSON.parse(await readFile(resolve(repo, 'node_modules', name, 'package.json'), 'utf8'));
    for (const [dependency, range] of Object.entries(dependencies)) {
      if (packages.has(dependency)) continue;
      packages.set(dependency, { parent: name, range });
      pending.push(dependency);
    }
  }
  return { code: outputFiles[0].contents, packages: [...packages].sort(([a], [b]) => (a < b ? -1 : 1)) };
}

// dist/'s notices, then each library of the launcher with its licence file in full.
async function noticesWithLauncher(distNotices, packages) {
  const sections = [];
  for (const [name, inside] of packages) {
    const folder = resolve(repo, 'node_modules', name);
    const { version, license } = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
    const licenceFile = (await listFiles(folder, folder)).find((file) => /^licen[cs]e(\.\w+)?$/i.test(file));
    if (!licenceFile) throw new Error(`${name} ships no licence file`);
    const which = inside ? `${inside.range} (${license}), inside ${inside.parent}'s build` : `${version} (${license})`;
    sections.push(`### ${name} ${which}\n\n\`\`\`text\n${(await readFile(join(folder, licenceFile), 'utf8')).trim()}\n\`\`\``);
  }
  return `${distNotices.trimEnd()}

## The cmi5 launcher's libraries (in ${launcherFile})

@xapi/cmi5 and the libraries its build carries inside it, each with its licence:

${sections.join('\n\n')}
`;
}

// Builds the zip from `dist` into `out`; returns its path.
export async function makeCmi5Package({ dist: given, out = defaultOut } = {}) {
  const dist = builtLesson(given);
  const { code, packages } = await bundleLauncher();
  const own = {
    'cmi5.xml': new TextEncoder().encode(courseStructure()),
    [launchPage]: await readFile(join(sources, launchPage)),
    [launcherFile]: code,
    'launch.css': await readFile(resolve(repo, 'scorm/scorm.css')),
    'README.md': await readFile(join(sources, 'README.md')),
  };
  const lessonFiles = await listFiles(dist);
  const clash = lessonFiles.filter((file) => file in own);
  if (clash.length) throw new Error(`dist/ already has ${clash.join(', ')}, which the package writes itself`);
  const entries = {};
  for (const file of lessonFiles) entries[file] = await readFile(join(dist, file));
  entries['THIRD_PARTY_NOTICES.md'] = new TextEncoder().encode(await noticesWithLauncher(entries['THIRD_PARTY_NOTICES.md'].toString('utf8'), packages));
  await mkdir(out, { recursive: true });
  const path = join(out, cmi5File);
  await writeFile(path, zipOf({ ...own, ...entries }));
  return path;
}

await runAsScript(import.meta.url, makeCmi5Package, (written) => [`cmi5: ${relative(process.cwd(), written)}`]);
