// The README as a front door (issue 39, item 1): short, without lines no one can read in a terminal, linking every
// page of docs/, and no link in it or in docs/ that leads nowhere (a file moved, a heading renamed). The npm tarball's
// README (web/lib/README.md; tests/browser/npm-package.test.mjs checks that it is the one shipped) stays short.
//   node --test tests/node/readme.test.mjs
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import GithubSlugger from 'github-slugger';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString } from 'mdast-util-to-string';

const repo = resolve(import.meta.dirname, '../..');
const readmeLimit = 250;
const lineLimit = 120;
const packageReadmeLimit = 120;

const lines = (text) => text.replace(/\n$/, '').split('\n');
const docsPages = async () => (await readdir(join(repo, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => join(repo, 'docs', name));

function* nodes(tree) {
  yield tree;
  for (const child of tree.children ?? []) yield* nodes(child);
}

// Every address a page points at: Markdown links, images and link definitions, and src/href in its raw HTML.
function addresses(tree) {
  const found = [];
  for (const node of nodes(tree)) {
    if (['link', 'image', 'definition'].includes(node.type)) found.push(node.url);
    if (node.type === 'html') for (const [, url] of node.value.matchAll(/\b(?:src|href)="([^"]*)"/g)) found.push(url);
  }
  return found;
}

// The anchors GitHub gives a page's headings (github-slugger numbers repeated ones as GitHub does), and explicit ids.
function anchors(tree) {
  const slugger = new GithubSlugger();
  const found = new Set();
  for (const node of nodes(tree)) {
    if (node.type === 'heading') found.add(slugger.slug(toString(node)));
    if (node.type === 'html') for (const [, id] of node.value.matchAll(/\b(?:id|name)="([^"]*)"/g)) found.add(id);
  }
  return found;
}

const parsed = new Map();
const parse = async (file) => {
  if (!parsed.has(file)) parsed.set(file, fromMarkdown(await readFile(file, 'utf8')));
  return parsed.get(file);
};

// The links of `file` that lead nowhere, as "target: why" sentences.
async function brokenLinks(file) {
  const broken = [];
  for (const address of addresses(await parse(file))) {
    if (/^[a-z][\w+.-]*:/i.test(address)) continue; // https:, mailto:: not a file of this repository
    const [path, anchor] = decodeURI(address).split('#');
    const target = path === '' ? file : resolve(dirname(file), path.split('?')[0]);
    if (!existsSync(target)) broken.push(`${address}: no file ${relative(repo, target)}`);
    else if (anchor && target.endsWith('.md') && !anchors(await parse(target)).has(anchor)) {
      broken.push(`${address}: ${relative(repo, target)} has no heading #${anchor}`);
    }
  }
  return broken;
}

test(`README.md is at most ${readmeLimit} lines, none longer than ${lineLimit} characters`, async () => {
  const readme = lines(await readFile(join(repo, 'README.md'), 'utf8'));
  assert.ok(readme.length <= readmeLimit, `README.md has ${readme.length} lines`);
  const long = readme.map((line, i) => [i + 1, [...line].length]).filter(([, length]) => length > lineLimit);
  assert.deepEqual(long, [], 'lines over the limit, as [line, characters]');
});

test('README.md links every page of docs/', async () => {
  const linked = new Set(addresses(await parse(join(repo, 'README.md'))).map((address) => resolve(repo, decodeURI(address).split('#')[0])));
  const missing = (await docsPages()).filter((page) => !linked.has(page)).map((page) => relative(repo, page));
  assert.deepEqual(missing, [], 'docs/ pages the README does not link');
});

test('every relative link in README.md and docs/*.md leads to a file, and each #anchor to a heading there', async () => {
  const pages = [join(repo, 'README.md'), ...(await docsPages())];
  const broken = [];
  for (const page of pages) for (const why of await brokenLinks(page)) broken.push(`${relative(repo, page)} → ${why}`);
  assert.deepEqual(broken, []);
});

test('the link check itself: a missing file and a missing heading are found', async () => {
  const tree = fromMarkdown('# A heading\n\n[ok](#a-heading) [gone](#no-such) [file](no-such-file.md) <img src="docs/lesson-1280.png">');
  assert.deepEqual(addresses(tree), ['#a-heading', '#no-such', 'no-such-file.md', 'docs/lesson-1280.png']);
  assert.deepEqual([...anchors(tree)], ['a-heading']);
});

test('README.md links the npm package\'s own README (web/lib/README.md), as a link, not only its name', async () => {
  const readme = join(repo, 'README.md');
  const targets = addresses(await parse(readme)).map((address) => resolve(repo, decodeURI(address).split('#')[0]));
  assert.ok(targets.includes(join(repo, 'web/lib/README.md')), 'README.md has a link to web/lib/README.md');
});

test(`the npm tarball's README (web/lib/README.md) is at most ${packageReadmeLimit} lines`, async () => {
  const count = lines(await readFile(join(repo, 'web/lib/README.md'), 'utf8')).length;
  assert.ok(count <= packageReadmeLimit, `web/lib/README.md has ${count} lines`);
});
