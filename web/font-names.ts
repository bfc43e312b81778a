// A TrueType/OpenType font's own words on its copyright and licence (its 'name' table): the OFL asks every copy
// of a font, subsets included, to carry the copyright notice, and THIRD_PARTY_NOTICES quotes it for each font the
// build ships.
import { readFileSync } from 'node:fs';

export const fontNameIds = { copyright: 0, licenseDescription: 13 } as const;

export function fontName(path: string, nameId: number): string {
  const font = readFileSync(path);
  const tableCount = font.readUInt16BE(4);
  for (let record = 12; record < 12 + tableCount * 16; record += 16) {
    if (font.toString('latin1', record, record + 4) !== 'name') continue;
    const table = font.readUInt32BE(record + 8);
    const count = font.readUInt16BE(table + 2);
    const strings = table + font.readUInt16BE(table + 4);
    for (let entry = table + 6; entry < table + 6 + count * 12; entry += 12) {
      const [platform, , , id, length, offset] = [0, 2, 4, 6, 8, 10].map((field) => font.readUInt16BE(entry + field));
      if (id !== nameId) continue;
      const bytes = font.subarray(strings + offset, strings + offset + length);
      // Windows names are UTF-16BE; Macintosh ones are single-byte (ASCII in every KaTeX font).
      return (platform === 3 ? Buffer.from(bytes).swap16().toString('utf16le') : bytes.toString('latin1')).trim();
    }
  }
  throw new Error(`${path} has no name ${nameId} in its 'name' table`);
}
