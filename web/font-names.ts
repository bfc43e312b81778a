// A TrueType/OpenType font's names (its 'name' table, OpenType spec "name — Naming Table"): read, for the font's
// own words on its copyright and licence (the OFL asks every copy of a font, subsets included, to carry the
// copyright notice, and THIRD_PARTY_NOTICES quotes it for each font the build ships), and rewritten, for the
// subsets the build renames (katex-font-subsets.ts). No library in the build writes a name table (HarfBuzz's
// subsetter only keeps or drops records; fontkitten only reads), so this does, on the uncompressed font.
export const fontNameIds = {
  copyright: 0,
  family: 1,
  subfamily: 2,
  uniqueId: 3,
  fullName: 4,
  version: 5,
  postScriptName: 6,
  trademark: 7,
  licenseDescription: 13,
  licenseUrl: 14,
  typographicFamily: 16,
  typographicSubfamily: 17,
} as const;

export interface NameRecord {
  platformId: number;
  encodingId: number;
  languageId: number;
  nameId: number;
  text: string;
}

interface TableEntry {
  tag: string;
  offset: number;
  length: number;
}

function tableDirectory(font: Buffer): TableEntry[] {
  const flavor = font.readUInt32BE(0);
  if (flavor !== 0x00010000 && flavor !== 0x4f54544f && flavor !== 0x74727565) throw new Error('font-names: not an uncompressed TrueType/OpenType font');
  return Array.from({ length: font.readUInt16BE(4) }, (_, i) => {
    const record = 12 + i * 16;
    return { tag: font.toString('latin1', record, record + 4), offset: font.readUInt32BE(record + 8), length: font.readUInt32BE(record + 12) };
  });
}

// Windows and Unicode names are UTF-16BE; Macintosh ones single-byte (Mac Roman, of which only ASCII is read).
const isUtf16 = (platformId: number) => platformId === 0 || platformId === 3;

function decode(platformId: number, bytes: Buffer): string {
  if (isUtf16(platformId)) return Buffer.from(bytes).swap16().toString('utf16le');
  if (bytes.some((byte) => byte > 0x7f)) throw new Error('font-names: a Macintosh name outside ASCII, which this reader does not decode');
  return bytes.toString('latin1');
}

function encode(platformId: number, text: string): Buffer {
  if (isUtf16(platformId)) return Buffer.from(text, 'utf16le').swap16();
  if (!/^[\x00-\x7f]*$/.test(text)) throw new Error(`font-names: a Macintosh name must be ASCII here: ${text}`);
  return Buffer.from(text, 'latin1');
}

export function nameRecords(font: Buffer): NameRecord[] {
  const table = tableDirectory(font).find((entry) => entry.tag === 'name');
  if (!table) throw new Error("font-names: the font has no 'name' table");
  const count = font.readUInt16BE(table.offset + 2);
  const strings = table.offset + font.readUInt16BE(table.offset + 4);
  return Array.from({ length: count }, (_, i) => {
    const [platformId, encodingId, languageId, nameId, length, offset] = [0, 2, 4, 6, 8, 10].map((field) => font.readUInt16BE(table.offset + 6 + i * 12 + field));
    return { platformId, encodingId, languageId, nameId, text: decode(platformId, font.subarray(strings + offset, strings + offset + length)) };
  });
}

// A format 0 'name' table of these records, sorted as the spec asks (platform, encoding, language, name ID).
function nameTable(records: NameRecord[]): Buffer {
  const sorted = [...records].sort((a, b) => a.platformId - b.platformId || a.encodingId - b.encodingId || a.languageId - b.languageId || a.nameId - b.nameId);
  const header = Buffer.alloc(6 + sorted.length * 12);
  header.writeUInt16BE(0, 0);
  header.writeUInt16BE(sorted.length, 2);
  header.writeUInt16BE(header.length, 4);
  const strings: Buffer[] = [];
  let stringsLength = 0;
  sorted.forEach((record, i) => {
    const bytes = encode(record.platformId, record.text);
    [record.platformId, record.encodingId, record.languageId, record.nameId, bytes.length, stringsLength].forEach((value, field) => header.writeUInt16BE(value, 6 + i * 12 + field * 2));
    strings.push(bytes);
    stringsLength += bytes.length;
  });
  return Buffer.concat([header, ...strings]);
}

// The sum of a table's 32-bit words, as the table directory and head.checksumAdjustment want it.
function checksum(bytes: Buffer): number {
  const padded = Buffer.concat([bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4)]);
  let sum = 0;
  for (let at = 0; at < padded.length; at += 4) sum = (sum + padded.readUInt32BE(at)) >>> 0;
  return sum;
}

// The font with its 'name' table replaced by these records: every table laid out again on 4-byte boundaries,
// each checksum and head.checksumAdjustment recomputed.
export function withNameRecords(font: Buffer, records: NameRecord[]): Buffer {
  const directory = tableDirectory(font);
  const tables = directory.map(({ tag, offset, length }) => ({ tag, bytes: tag === 'name' ? nameTable(records) : Buffer.from(font.subarray(offset, offset + length)) }));
  const head = tables.find((table) => table.tag === 'head');
  if (!head) throw new Error("font-names: the font has no 'head' table");
  head.bytes.writeUInt32BE(0, 8); // checksumAdjustment, 0 while the checksums are summed
  const out = Buffer.alloc(12 + tables.length * 16 + tables.reduce((sum, { bytes }) => sum + Math.ceil(bytes.length / 4) * 4, 0));
  font.copy(out, 0, 0, 12); // sfnt version, numTables, searchRange, entrySelector, rangeShift: unchanged
  let offset = 12 + tables.length * 16;
  let headOffset = 0;
  tables.forEach(({ tag, bytes }, i) => {
    const record = 12 + i * 16;
    out.write(tag, record, 'latin1');
    out.writeUInt32BE(checksum(bytes), record + 4);
    out.writeUInt32BE(offset, record + 8);
    out.writeUInt32BE(bytes.length, record + 12);
    bytes.copy(out, offset);
    if (tag === 'head') headOffset = offset;
    offset += Math.ceil(bytes.length / 4) * 4;
  });
  out.writeUInt32BE((0xb1b0afba - checksum(out)) >>> 0, headOffset + 8);
  return out;
}

// The Reserved Font Names a font's copyright or licence records declare, as the OFL's notice words them:
// 'with Reserved Font Name KaTeX_Main.', 'with Reserved Font Names "A" and "B".'
export function reservedFontNames(records: NameRecord[]): string[] {
  const names = new Set<string>();
  for (const { nameId, text } of records) {
    if (nameId !== fontNameIds.copyright && nameId !== fontNameIds.licenseDescription) continue;
    for (const [, list] of text.matchAll(/Reserved Font Names?\s+(.+?)(?:\.(?:\s|$)|\n|$)/g)) {
      const quoted = [...list.matchAll(/["“]([^"”]+)["”]/g)].map(([, name]) => name);
      for (const name of quoted.length ? quoted : list.split(/\s*,\s*|\s+and\s+/)) if (name.trim()) names.add(name.trim());
    }
  }
  return [...names];
}
