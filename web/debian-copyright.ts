// Debian's machine-readable copyright file (DEP-5) for a package, read as the record of who holds what in its
// source tree: THIRD_PARTY_NOTICES takes the copyright and licence of the parts of Emscripten's tree that end
// up in the lesson's WebAssembly modules from /usr/share/doc/emscripten/copyright (the Debian package the
// build uses; Debian strips the licence files of libc++, libc++abi and compiler-rt from the tree itself).
import { existsSync, readFileSync } from 'node:fs';

export interface FilesStanza {
  files: string[];
  copyright: string;
  // The licence expression (its first line) and any text written in the stanza itself (an exception).
  license: string;
  inlineText: string;
}

export interface DebianCopyright {
  stanzas: FilesStanza[];
  // Stand-alone licence paragraphs by lower-case name (DEP-5's names ignore case: this file has BSD-2-Clause and
  // BSD-2-clause), with a `Reference:` file's text in place of the reference.
  licenseTexts: Map<string, string>;
}

type Paragraph = Record<string, string>;

// Fields start at column 0; continuation lines start with a space, and a lone " ." is an empty line.
function paragraphs(text: string): Paragraph[] {
  return text.split(/\n[ \t]*\n/).map((block) => {
    const fields: Paragraph = {};
    let key = '';
    for (const line of block.split('\n')) {
      const field = /^([A-Za-z-]+):[ \t]?(.*)$/.exec(line);
      if (field) [, key, fields[field[1]]] = field;
      else if (key && line.startsWith(' ')) fields[key] += `\n${line.slice(1) === '.' ? '' : line.slice(1)}`;
    }
    return fields;
  });
}

const firstLine = (value: string) => value.split('\n')[0].trim();
const afterFirstLine = (value: string) => value.split('\n').slice(1).join('\n').trim();
const trimLines = (value: string) => value.split('\n').map((line) => line.trim()).filter(Boolean).join('\n');

export function readDebianCopyright(path: string): DebianCopyright {
  if (!existsSync(path)) throw new Error(`${path} is missing: THIRD_PARTY_NOTICES reads Emscripten's copyright from Debian's emscripten package (scripts/setup.sh installs it)`);
  const stanzas: FilesStanza[] = [];
  const licenseTexts = new Map<string, string>();
  for (const paragraph of paragraphs(readFileSync(path, 'utf8'))) {
    if (!paragraph.License) continue;
    const license = firstLine(paragraph.License);
    if (paragraph.Files !== undefined) {
      stanzas.push({ files: paragraph.Files.trim().split(/\s+/), copyright: trimLines(paragraph.Copyright ?? ''), license, inlineText: afterFirstLine(paragraph.License) });
    } else if (paragraph.Reference?.startsWith('/')) {
      licenseTexts.set(license.toLowerCase(), readFileSync(paragraph.Reference.trim(), 'utf8').trim());
    } else {
      licenseTexts.set(license.toLowerCase(), afterFirstLine(paragraph.License));
    }
  }
  return { stanzas, licenseTexts };
}

// The licence names in an expression such as "Expat or NCSA~LLVM" or "Apache-2.0 with LLVM exception" (the
// exception's text is in the stanza).
export function licenseNames(expression: string): string[] {
  return expression.split(/\s+(?:or|and)\s+/).map((name) => name.replace(/\s+with\s+.*$/, '').trim());
}
