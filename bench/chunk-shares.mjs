#!/usr/bin/env node
// Which source files a built chunk is made of, weighted as it crosses the line: each byte of the chunk goes to
// the source file of the mapping segment it follows (its source map), each file's bytes are gzipped (-9) on
// their own (zlib, level 9), and those sizes, scaled to the whole chunk's gzip size, are the files' shares.
// '(unmapped)': bytes with no source file, as a virtual module's (virtual:math, the typeset formulas) are.
//   npx vite build web --sourcemap --outDir /tmp/open44-dist
//   node bench/chunk-shares.mjs /tmp/open44-dist/assets/<chunk>.js [--top 40]
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { decode } from '@jridgewell/sourcemap-codec';

// The chunk's bytes per source file: each byte goes to the last segment before it, across lines too (a multi-line
// template literal, the prerendered formulas' HTML, has segments on its first line only); '(unmapped)' before any
// segment and after one without a source.
function bytesPerSource(file, code, map) {
  const parts = new Map();
  const lines = code.split('\n');
  const segmentLines = decode(map.mappings); // per line: [column, source, line, column, name?], absolute
  let owner = '(unmapped)';
  for (let line = 0; line < lines.length; line++) {
    const text = lines[line];
    let from = 0;
    const take = (to) => {
      parts.set(owner, (parts.get(owner) ?? '') + text.slice(from, to));
      from = to;
    };
    for (const [column, source] of segmentLines[line] ?? []) {
      take(column);
      owner = source === undefined ? '(unmapped)' : relative(process.cwd(), resolve(dirname(file), map.sources[source]));
    }
    take(text.length + 1); // the line's newline too
  }
  return parts;
}

const gzipped = (text) => gzipSync(text, { level: 9 }).length;

const [file, ...rest] = process.argv.slice(2);
const top = Number(rest[rest.indexOf('--top') + 1]) || 40;
const code = readFileSync(file, 'utf8');
const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
const parts = [...bytesPerSource(file, code, map)].map(([source, text]) => ({ source, bytes: text.length, gzip: gzipped(text) }));
const whole = gzipped(code);
const sum = parts.reduce((total, part) => total + part.gzip, 0);
parts.sort((a, b) => b.gzip - a.gzip);
console.log(`${file}: ${code.length} bytes, ${whole} gzip -9 (the files' own gzip sizes add up to ${sum})`);
console.log('| source | bytes | own gzip | share of the chunk\'s gzip |');
console.log('|---|---:|---:|---:|');
for (const part of parts.slice(0, top)) {
  const share = (part.gzip / sum) * whole;
  console.log(`| ${part.source} | ${part.bytes} | ${part.gzip} | ${(share / 1000).toFixed(1)} kB (${((100 * part.gzip) / sum).toFixed(1)}%) |`);
}
