// THIRD_PARTY_NOTICES.md and the lesson's licence (LICENSE.txt: ADL's SCORM checker refuses a packaged file
// without an extension) in each build's folder (the site's dist/, and through
// vite.lib.config.ts, which extends this config, the npm package's dist-lib/), written from what that build put
// there, not from a hand-kept list:
// - the module graph of every chunk, the workers' included: each module under node_modules/ names its package,
//   Vite's own helpers (\0vite/…) name Vite, and Emscripten's ES modules (src/wasm/*.mjs) name the Emscripten
//   runtime and the C/C++ libraries linked into their .wasm;
// - the service worker (sw.js, written by vite-plugin-pwa after the bundle): Workbox's modules mark themselves
//   in its code as "workbox:<module>:<version>";
// - each package's own licence file; each font's own copyright notice (its name table); Debian's copyright file
//   for the parts of Emscripten's tree; licenses/OFL-1.1.txt for the fonts' licence, which no package ships.
// Not rollup-plugin-license: it sees node_modules packages only (here KaTeX and Vite's helpers), not the worker
// builds, the service worker, nor the runtime and libraries inside the WebAssembly; and it declares Rollup, not
// the Rolldown that Vite 8 builds with, as its host.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { type DebianCopyright, licenseNames, readDebianCopyright } from './debian-copyright.ts';
import { fontNameIds, nameRecords, reservedFontNames } from './font-names.ts';
import { lessonFontFamily } from './src/lesson/font-families.ts';

const repo = resolve(import.meta.dirname, '..');
export const noticesFile = 'THIRD_PARTY_NOTICES.md';
const emscriptenCopyright = '/usr/share/doc/emscripten/copyright';
const emscriptenVersionFile = '/usr/share/emscripten/emscripten-version.txt';

// What an Emscripten link of the lesson's C++ (embind, no exceptions, no file system) puts in each .wasm and its
// .mjs, as paths in Emscripten's source tree, which is how Debian's copyright file names them. The allocator
// is the one CMakeLists.txt links (-sMALLOC=…; dlmalloc when it says none).
function emscriptenParts(): { name: string; paths: string[] }[] {
  const allocator = /-sMALLOC=(\w+)/.exec(readFileSync(join(repo, 'CMakeLists.txt'), 'utf8'))?.[1] ?? 'dlmalloc';
  if (!['emmalloc', 'dlmalloc'].includes(allocator)) throw new Error(`CMakeLists.txt links -sMALLOC=${allocator}, which third-party-notices.ts does not know`);
  return [
    { name: `Emscripten's own code: the JavaScript runtime in each .mjs, embind${allocator === 'emmalloc' ? ', emmalloc (the memory allocator)' : ''}`, paths: ['*', 'src/'] },
    ...(allocator === 'dlmalloc' ? [{ name: 'dlmalloc, the memory allocator', paths: ['system/lib/dlmalloc.c'] }] : []),
    { name: 'musl, the C library', paths: ['system/lib/libc/'] },
    { name: 'libc++, the C++ standard library', paths: ['system/lib/libcxx/'] },
    { name: 'libc++abi', paths: ['system/lib/libcxxabi/'] },
    { name: 'compiler-rt, the compiler runtime', paths: ['system/lib/compiler-rt/'] },
  ];
}

// A module id's package folder under node_modules/, or undefined for the lesson's own modules.
function packageFolder(id: string): string | undefined {
  const path = id.split('?')[0];
  const at = path.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const [scopeOrName, name] = path.slice(at + '/node_modules/'.length).split('/');
  return path.slice(0, at + '/node_modules/'.length) + (scopeOrName.startsWith('@') ? `${scopeOrName}/${name}` : scopeOrName);
}

interface Shipped {
  packages: Map<string, Set<string>>; // package folder -> its files that shipped
  emscripten: boolean;
}

function record(shipped: Shipped, id: string): void {
  const folder = id.startsWith('\0vite/') ? join(repo, 'node_modules/vite') : packageFolder(id);
  if (folder) {
    const files = shipped.packages.get(folder) ?? new Set<string>();
    files.add(id.startsWith('\0') ? `${id.slice(1)} (a helper Vite adds to the bundle)` : relative(folder, id.split('?')[0]));
    shipped.packages.set(folder, files);
  } else if (/\/src\/wasm\/[\w-]+\.mjs$/.test(id)) {
    shipped.emscripten = true;
  }
}

// Workbox's modules in a service worker, by the marker each one's code carries (a string in any quotes: the
// minifier writes it as a template literal).
function recordServiceWorker(shipped: Shipped, serviceWorker: string): void {
  if (!existsSync(serviceWorker)) return;
  for (const [, module, version] of readFileSync(serviceWorker, 'utf8').matchAll(/["'`]workbox:([\w-]+):([\d.]+)["'`]/g)) {
    const folder = join(repo, 'node_modules', `workbox-${module}`);
    // The marker comes from the package's _version.js (7.4.1 still says 7.4.0), not from its package.json.
    if (!readFileSync(join(folder, '_version.js'), 'utf8').includes(`workbox:${module}:${version}`)) throw new Error(`sw.js holds workbox-${module} ${version}, which is not the one in node_modules`);
    shipped.packages.set(folder, new Set([`(in ${basename(serviceWorker)}, the service worker)`]));
  }
}

const packageJson = (folder: string) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name: string; version: string; license?: string; homepage?: string };

// A package's licence file; a list of the licences of the package's own bundled dependencies (Vite's
// LICENSE.md has one) is cut off: those are in Vite's build tools, not in the helpers it adds to ours.
function packageLicense(folder: string): string {
  const file = readdirSync(folder).find((name) => /^licen[cs]e(\.md|\.txt)?$/i.test(name));
  if (!file) throw new Error(`${folder} has no licence file for ${noticesFile}`);
  return readFileSync(join(folder, file), 'utf8').split(/^# Licenses of bundled dependencies/m)[0].trim();
}

const fence = (text: string) => `\`\`\`text\n${text}\n\`\`\``;

function packageSection(folder: string, files: Set<string>): string {
  const { name, version, license, homepage } = packageJson(folder);
  const code = [...files].filter((file) => !isFont(file)).sort();
  const fonts = [...files].filter(isFont).sort();
  return [
    `## ${name} ${version} (${license ?? 'see its licence'})`,
    homepage ? `${homepage}\n` : '',
    code.length ? `In this build: ${code.join(', ')}.\n` : '',
    fence(packageLicense(folder)),
    fonts.length ? fontSection(folder, fonts) : '',
  ].join('\n');
}

const isFont = (file: string) => /\.(woff2?|ttf|otf)$/.test(file);

// Fonts ship as subsets (the lesson's glyphs only, woff2): Modified Versions under the OFL, each renamed, since
// each of KaTeX's fonts reserves its name (katex-font-subsets.ts). Their notices are read from the package's .ttf
// of the same name.
function fontSection(folder: string, fonts: string[]): string {
  const notices = fonts.map((font) => {
    const ttf = join(folder, font.replace(/\.woff2?$/, '.ttf'));
    const records = nameRecords(readFileSync(ttf));
    const text = (nameId: number) => records.find((record) => record.nameId === nameId)?.text.trim() ?? '';
    const license = text(fontNameIds.licenseDescription);
    if (!/SIL Open Font License, Version 1\.1/.test(license)) throw new Error(`${ttf}'s licence is not the OFL 1.1 that ${noticesFile} quotes: ${license}`);
    const reserved = reservedFontNames(records);
    const renamed = `Shipped as the font family ${lessonFontFamily(text(fontNameIds.family))} (the original: ${text(fontNameIds.family)}; its Reserved Font Name: ${reserved.join(', ') || 'none declared'}).\n`;
    return `### ${basename(font)}\n\n${fence(`${text(fontNameIds.copyright)}\n\n${license}`)}\n\n${renamed}`;
  });
  return [
    `\n### Its fonts: SIL Open Font License 1.1\n`,
    'Each font below ships as a subset (only the glyphs the lesson uses, as woff2), which is a Modified Version under the licence. ' +
      'A Modified Version may not use a Reserved Font Name (each font\'s is named below), so each subset has a name of its own, ' +
      'in its name table and in the style rules that name it; its copyright notice and licence stay in its name table. ' +
      'The file keeps the name of the font it was cut from (the licence\'s condition 3 restricts the font name presented to users). Each font\'s copyright notice and licence, in its own words:\n',
    ...notices,
    '\nThe licence:\n',
    fence(readFileSync(join(repo, 'licenses/OFL-1.1.txt'), 'utf8').trim()),
  ].join('\n');
}

function emscriptenSection(): string {
  const copyright: DebianCopyright = readDebianCopyright(emscriptenCopyright);
  const version = readFileSync(emscriptenVersionFile, 'utf8').trim().replace(/"/g, '');
  const usedLicenses = new Map<string, string>(); // lower-case name -> the name as first written
  const parts = emscriptenParts().map(({ name, paths }) => {
    const stanzas = copyright.stanzas.filter((stanza) => stanza.files.some((file) => paths.some((path) => (path === '*' ? file === '*' : file.startsWith(path)))));
    if (!stanzas.length) throw new Error(`${emscriptenCopyright} names none of ${paths.join(', ')}`);
    return [`### ${name}\n`, ...stanzas.map((stanza) => {
      // A single licence whose text the stanza holds (public-domain grants) needs no text of its own below.
      const textInStanza = stanza.inlineText !== '' && licenseNames(stanza.license).length === 1 && !/\swith\s/.test(stanza.license);
      if (!textInStanza) for (const license of licenseNames(stanza.license)) if (!usedLicenses.has(license.toLowerCase())) usedLicenses.set(license.toLowerCase(), license);
      return fence([`Files: ${stanza.files.join(' ')}`, `Copyright: ${stanza.copyright.replace(/\n/g, '\n  ')}`, `License: ${stanza.license}`, stanza.inlineText].filter(Boolean).join('\n'));
    })].join('\n');
  });
  const texts = [...usedLicenses].sort().map(([key, license]) => {
    const text = copyright.licenseTexts.get(key);
    if (text === undefined) throw new Error(`${emscriptenCopyright} has no text for the licence ${license}`);
    return `### ${license}\n\n${fence(text)}`;
  });
  return [
    `## Emscripten ${version}: the runtime and C/C++ libraries in the WebAssembly modules (.wasm, and their .mjs)\n`,
    `From Debian's record of Emscripten's source tree (${emscriptenCopyright}), every entry under each part linked in.\n`,
    ...parts,
    '\n### Licence texts (Emscripten and its parts)\n',
    ...texts,
  ].join('\n');
}

function notices(shipped: Shipped): string {
  const { name, version } = packageJson(repo);
  const packages = [...shipped.packages].sort(([a], [b]) => packageJson(a).name.localeCompare(packageJson(b).name));
  return [
    `# Third-party notices: ${name} ${version}\n`,
    `${name} itself is under the MIT licence (LICENSE.txt, beside this file). This folder also holds the third-party code and data below,`,
    'each under its own licence. The build wrote this file from what it put here (web/third-party-notices.ts).\n',
    ...packages.map(([folder, files]) => packageSection(folder, files)),
    shipped.emscripten ? emscriptenSection() : '',
  ].join('\n') + '\n';
}

// One instance for a build and the worker builds inside it: `plugin` in the config's plugins (after the
// service worker's), `workerPlugin()` in worker.plugins.
export function thirdPartyNotices(): { plugin: Plugin; workerPlugin: () => Plugin } {
  let shipped: Shipped = { packages: new Map(), emscripten: false };
  let outDir = '';
  const collect = {
    generateBundle(_: unknown, bundle: Record<string, { type: string; moduleIds?: string[] }>) {
      for (const file of Object.values(bundle)) for (const id of file.moduleIds ?? []) record(shipped, id);
    },
  };
  const plugin: Plugin = {
    name: 'qkv-third-party-notices',
    apply: 'build',
    configResolved: (config) => void (outDir = resolve(config.root, config.build.outDir)),
    buildStart: () => void (shipped = { packages: new Map(), emscripten: false }),
    ...collect,
    closeBundle: {
      order: 'post',
      sequential: true,
      handler() {
        recordServiceWorker(shipped, join(outDir, 'sw.js'));
        writeFileSync(join(outDir, noticesFile), notices(shipped));
        writeFileSync(join(outDir, 'LICENSE.txt'), readFileSync(join(repo, 'LICENSE')));
      },
    },
  };
  return { plugin, workerPlugin: () => ({ name: 'qkv-third-party-notices-worker', ...collect }) };
}
