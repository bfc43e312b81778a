// The link format: the lesson's parameters live beside a host page's own, which survive every write.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { importLesson } from './typescript.mjs';

let withLessonParams;
before(async () => {
  ({ withLessonParams } = await importLesson('url-state'));
});

test("a host page's own query parameters survive the lesson's link", () => {
  assert.equal(withLessonParams('?unit=3&lang=en', 'b=1&t=2'), 'unit=3&lang=en&b=1&t=2');
});

test("the lesson's earlier parameters are replaced, not repeated, and foreign ones keep their order", () => {
  assert.equal(withLessonParams('?unit=3&b=2&x=9&sseed=4&lang=en', 'sseed=7&b=1&x=1%2C2'), 'unit=3&lang=en&sseed=7&b=1&x=1%2C2');
});

test('an empty page query gives exactly the lesson\'s parameters', () => {
  assert.equal(withLessonParams('', 'b=1&t=2&d=3&h=2'), 'b=1&t=2&d=3&h=2');
});

// Issue 18, item 4: every link the page writes loads from any server. The numbers stay in the query while the
// request target (path and query) is at most 2,000 characters; beyond, the cell lists move to the #fragment.
describe('where a link keeps its numbers', () => {
  let url;
  before(async () => {
    url = await importLesson('url-state');
  });

  const keys = ['input', 'query_weight', 'key_weight', 'value_weight', 'query_upstream', 'key_upstream', 'value_upstream'];
  // A state as the core returns it; `digits` decimals in every cell.
  function state([b, t, d, h], digits) {
    const counts = { input: b * t * d, query_weight: d * h, key_weight: d * h, value_weight: d * h, query_upstream: b * t * h, key_upstream: b * t * h, value_upstream: b * t * h };
    const out = { batch: String(b), tokens: String(t), model_width: String(d), head_width: String(h) };
    for (const [n, key] of keys.entries()) out[key] = { shape: [], cells: Array.from({ length: counts[key] }, (_, i) => `-0.${String(i * 31 + n + 1).padStart(digits, '7')}`) };
    return out;
  }
  const cellsOf = (s) => Object.fromEntries(keys.map((key) => [key, s[key].cells]));
  const selfScore = { seed: '7', tokens: '5', dim: '8' };
  // Where the browser would be after following `target` from `place`.
  function follow(place, target) {
    const next = new URL(target, `https://lesson.example${place.pathname}${place.search}${place.hash}`);
    return { pathname: next.pathname, search: next.search, hash: next.hash };
  }

  test('a small state stays in the query, in the format earlier pages wrote, beside the host page’s own parameters and fragment', () => {
    const small = state([1, 2, 3, 2], 1);
    const lesson = url.stateToSearch(small, selfScore);
    const place = { pathname: '/course/', search: '?unit=3&q=a%20b', hash: '#self-score' };
    assert.equal(url.linkTarget(place, lesson), `?unit=3&q=a%20b&${lesson}#self-score`);
    assert.match(lesson, /^sseed=7&sn=5&sd=8&b=1&t=2&d=3&h=2&x=-0\.1%2C-0\.(\d+)%2C/);
    const after = follow(place, url.linkTarget(place, lesson));
    assert.deepEqual(url.stateFromSearch(url.linkFromUrl(after.search, after.hash)), { ...small, ...Object.fromEntries(keys.map((key) => [key, { shape: [], cells: small[key].cells }])) });
  });

  test('every size at 8 with 17-digit cells: the query keeps the sizes and settings under 2,000 characters, the cells go to the fragment and read back', () => {
    const large = state([8, 8, 8, 8], 17);
    const lesson = url.stateToSearch(large, selfScore);
    assert.ok(lesson.length > 40000, `all in the query it would be ${lesson.length} characters`);
    const place = { pathname: '/lesson/', search: '?unit=3', hash: '' };
    const target = url.linkTarget(place, lesson);
    const after = follow(place, target);
    assert.ok(after.pathname.length + after.search.length <= url.queryLimit, `request target ${after.pathname.length + after.search.length} characters`);
    assert.equal(after.search, '?unit=3&sseed=7&sn=5&sd=8&b=8&t=8&d=8&h=8');
    assert.ok(/^#\?x=-0\.7{16}1%2C/.test(after.hash), after.hash.slice(0, 60));
    const read = url.stateFromSearch(url.linkFromUrl(after.search, after.hash));
    assert.deepEqual(cellsOf(read), cellsOf(large));
    assert.deepEqual(url.selfScoreFromSearch(url.linkFromUrl(after.search, after.hash), { seed: '1', tokens: '1', dim: '1' }), selfScore);
  });

  test('the path counts toward the 2,000 characters: the same numbers move to the fragment under a long path', () => {
    const lesson = url.stateToSearch(state([1, 8, 8, 2], 1), selfScore);
    const short = url.linkTarget({ pathname: '/', search: '', hash: '' }, lesson);
    assert.ok(!short.includes('#'), `${short.length} characters fit in the query`);
    const long = url.linkTarget({ pathname: `/${'p'.repeat(2000 - short.length)}/`, search: '', hash: '' }, lesson);
    assert.match(long, /^\?sseed=7&sn=5&sd=8&b=1&t=8&d=8&h=2#\?x=/);
  });

  test('a section name, and a host page’s own fragment parameters, stay in front of the numbers; the section is read back', () => {
    const lesson = url.stateToSearch(state([8, 8, 8, 8], 3), selfScore);
    const target = url.linkTarget({ search: '', hash: '#diagram' }, lesson);
    assert.match(target, /#diagram\?x=/);
    assert.equal(url.fragmentAnchor(follow({ pathname: '/', search: '', hash: '' }, target).hash), 'diagram');
    const routed = url.linkTarget({ search: '', hash: '#/unit/3?lang=en' }, lesson);
    assert.match(routed, /#\/unit\/3\?lang=en&x=/);
    assert.equal(url.fragmentAnchor('#self-score'), 'self-score');
    assert.equal(url.fragmentAnchor(''), '');
  });

  test('growing and shrinking again: numbers are written in one place only, and the other place is cleaned', () => {
    const large = url.stateToSearch(state([8, 8, 8, 8], 3), selfScore);
    const small = url.stateToSearch(state([1, 2, 3, 2], 1), selfScore);
    let place = { pathname: '/', search: '?unit=3', hash: '#diagram' };
    place = follow(place, url.linkTarget(place, large));
    assert.match(place.hash, /^#diagram\?x=/);
    place = follow(place, url.linkTarget(place, small));
    assert.equal(place.hash, '#diagram', 'the fragment loses the old cells');
    assert.equal(place.search, `?unit=3&${small}`);
    place = follow(place, url.linkTarget(place, large));
    assert.ok(!/[?&]x=/.test(place.search), 'the query loses the cells when they move to the fragment');
    assert.equal(url.linkTarget({ pathname: '/', search: '', hash: '#?x=1' }, small), `?${small}`, 'a fragment of numbers only leaves no bare #');
  });

  test('links written before the fragment form read as they did; a fragment’s cells win over the query’s', () => {
    const old = '?b=1&t=2&d=3&h=2&x=1%2C2%2C3%2C4%2C5%2C6';
    assert.equal(url.linkFromUrl(old, ''), old.slice(1));
    assert.equal(url.linkFromUrl(old, '#diagram'), old.slice(1));
    assert.deepEqual(url.stateFromSearch(url.linkFromUrl(old, '#self-score')).input.cells, ['1', '2', '3', '4', '5', '6']);
    assert.deepEqual(url.stateFromSearch(url.linkFromUrl(old, '#?x=9,8')).input.cells, ['9', '8']);
  });

  test('a link past linkLimit is handed on unread, and no link longer than the limit is written', () => {
    assert.equal(url.linkLimit, 131072);
    const hash = `#?x=${'1,'.repeat(70000)}`;
    assert.ok(url.linkFromUrl('?b=1&t=2&d=3&h=2', hash).length > url.linkLimit);
    assert.equal(url.selfScoreFromSearch(`sseed=4&x=${'1,'.repeat(70000)}`, selfScore), null);
  });
});

// Issue 37, item 6: on a course page the lesson's parameters are named qkv-…, and the page's own are not the lesson's.
describe('a course page’s address: the lesson’s parameters under qkv-', () => {
  let url;
  before(async () => {
    url = await importLesson('url-state');
  });

  test('sync-url’s value gives the prefix: none for "unprefixed", qkv- otherwise, null without the attribute', () => {
    assert.equal(url.linkPrefixFor(null), null);
    assert.equal(url.linkPrefixFor('unprefixed'), '');
    for (const value of ['', 'true', 'qkv-']) assert.equal(url.linkPrefixFor(value), 'qkv-', value);
  });

  test('the page’s own t, d, h, x and b are left as written, and only qkv- parameters are read', () => {
    const own = '?t=120&page=3&d=2026-12-06&h=a&x=%2C&b';
    assert.equal(url.linkFromUrl(own, '#x?t=1', 'qkv-'), '');
    assert.equal(url.linkFromUrl(`${own}&qkv-b=1&qkv-t=2&qkv-d=3&qkv-h=2`, '', 'qkv-'), 'b=1&t=2&d=3&h=2');
    assert.equal(url.linkFromUrl(`${own}&qkv-b=1&qkv-x=1,2`, '#top?qkv-x=9&t=4', 'qkv-'), 'b=1&x=9', 'the fragment’s qkv-x wins, its t is the page’s');
    const lesson = 'sseed=7&b=1&t=2&d=3&h=2&x=1%2C2';
    const target = url.linkTarget({ pathname: '/course/', search: own, hash: '#top' }, lesson, 'qkv-');
    assert.equal(target, `${own}&qkv-sseed=7&qkv-b=1&qkv-t=2&qkv-d=3&qkv-h=2&qkv-x=1%2C2#top`);
    assert.equal(url.linkTarget({ search: `${own}&qkv-b=8&qkv-x=5`, hash: '' }, 'b=1', 'qkv-'), `${own}&qkv-b=1`, 'the lesson’s earlier parameters are replaced');
  });

  test('bare names on a page that is the lesson’s own (prefix ""): qkv- names are not the lesson’s there', () => {
    assert.equal(url.linkFromUrl('?qkv-b=1&b=2', '', ''), 'b=2');
  });
});

// One reader says what a link gives the diagram: nothing, a state for the core, or why it is not read.
test('a link gives the diagram nothing, a state, or a reason it is not read', async () => {
  const { readDiagramLink, linkLimit } = await importLesson('url-state');
  for (const plain of ['', 'unit=3', 'sseed=4&sn=5&sd=8']) assert.deepEqual(readDiagramLink(plain), { kind: 'none' }, plain);
  const read = readDiagramLink('b=1&t=2&d=1&h=1&x=1,2');
  assert.equal(read.kind, 'state');
  assert.deepEqual([read.state.batch, read.state.tokens, read.state.model_width, read.state.head_width, read.state.input.cells], ['1', '2', '1', '1', ['1', '2']]);
  assert.deepEqual(readDiagramLink('b=99'), { kind: 'unread', why: 'it has no t, d or h, and a link gives all four sizes: b, t, d and h' });
  assert.deepEqual(readDiagramLink('x=1,2,3&sseed=2'), { kind: 'unread', why: 'it has no b, t, d or h, and a link gives all four sizes: b, t, d and h' });
  assert.deepEqual(readDiagramLink('b=1&t=1&d=1'), { kind: 'unread', why: 'it has no h, and a link gives all four sizes: b, t, d and h' });
  const long = `b=1&t=1&d=1&h=1&x=${'1'.repeat(linkLimit)}`;
  assert.deepEqual(readDiagramLink(long), { kind: 'unread', why: `it is ${long.length.toLocaleString('en-US')} characters long, and the lesson reads links of at most 131,072` });
});

test('a link carries words that are not the fixture’s, one w per token, only with the cells they name', async () => {
  const { readDiagramLink, stateToSearch, withLessonParams } = await importLesson('url-state');
  const cells = (n) => ({ shape: [], cells: Array.from({ length: n }, () => '1') });
  const state = { batch: '1', tokens: '2', model_width: '1', head_width: '1', input: cells(2), query_weight: cells(1), key_weight: cells(1), value_weight: cells(1), query_upstream: cells(2), key_upstream: cells(2), value_upstream: cells(2) };
  const words = ['fox, red', 'naps&dreams'];
  const link = stateToSearch(state, undefined, true, words);
  const read = readDiagramLink(link);
  assert.equal(read.kind, 'state');
  assert.deepEqual(read.tokenNames, words, 'the words come back whole, commas and ampersands included');
  assert.equal(readDiagramLink(stateToSearch(state)).tokenNames, undefined, 'no words: the fixture story’s');
  assert.doesNotMatch(stateToSearch(state, undefined, false, words), /(^|&)w=/, 'without the cells, no words');
  assert.equal(withLessonParams(`unit=3&${link}`, 'b=1&t=2&d=1&h=1'), 'unit=3&b=1&t=2&d=1&h=1', 'w is the lesson’s own parameter: replaced, not left behind');
});
