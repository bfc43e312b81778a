#!/usr/bin/env node
// Functions a screen or two long: measures every function in web/src (.ts, with the TypeScript compiler's own
// parser: declarations, methods, accessors, constructors, arrow functions and function expressions) and every
// function definition in cpp/ (.cpp and .hpp, with the brace scanner below), prints the longest few, and exits 1
// naming each one over the limit as file:line.
//   node tools/function-length.mjs [root]   (run by tests/node/function-length.test.mjs)
// A function's length is its lines from the first of its declaration (after any comment) to its closing brace.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { walk } from './walk.mjs';
import ts from 'typescript';

export const LIMIT = 120;

// The tree to read: the repository, or another checkout given as the argument (the node test's copies).
const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));

// ---- TypeScript: the compiler's syntax tree ----

function nameOfTs(node, source) {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  // An arrow function or function expression takes the name it is given (`const f = () => …`, `{ f: … }`).
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) {
    return parent.name.getText(source);
  }
  return `(anonymous ${ts.SyntaxKind[node.kind]})`;
}

export function tsFunctions(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      found.push({ name: nameOfTs(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// ---- C++: a brace scanner for clang-formatted code ----
// Comments, string and character literals (raw strings included) and preprocessor lines are blanked first,
// newlines kept. Then, at namespace and class scope, a `{` opens a function body when the text before it (its
// head, since the last `;`, `{` or `}` of that scope) is a declarator: it ends in `)` plus qualifiers (`const`,
// `noexcept`, `override`, `-> type`, …), or in a constructor's initialiser list after such a `)`. Heads with
// `namespace`, `extern` or a class key open scopes that are scanned further; every other `{` there (a variable's
// braced initialiser, an enum's list) is skipped whole. A lambda or local class inside a function is part of its
// function's lines, so the function bounds it.

export function blankCpp(text) {
  let out = '';
  let i = 0;
  const blank = (s) => s.replace(/[^\n]/g, ' ');
  const atLineStart = () => /(^|\n)[ \t]*$/.test(out.slice(-200));
  while (i < text.length) {
    const rest = text.slice(i, i + 3);
    if (rest.startsWith('//')) {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (rest.startsWith('/*')) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (text[i] === '#' && atLineStart()) {
      let stop = i;
      // A directive runs to the end of its line, or further after a backslash.
      for (;;) {
        const end = text.indexOf('\n', stop);
        if (end < 0) {
          stop = text.length;
          break;
        }
        if (text[end - 1] !== '\\') {
          stop = end;
          break;
        }
        stop = end + 1;
      }
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (/^(u8|[uUL])?R"/.test(text.slice(i, i + 4)) && !/[\w]/.test(text[i - 1] ?? '')) {
      const open = text.indexOf('"', i);
      const paren = text.indexOf('(', open);
      const delimiter = `)${text.slice(open + 1, paren)}"`;
      const end = text.indexOf(delimiter, paren);
      const stop = end < 0 ? text.length : end + delimiter.length;
      out += `""${blank(text.slice(i + 2, stop))}`.slice(0, stop - i);
      i = stop;
    } else if (text[i] === '"' || (text[i] === "'" && !/[0-9A-Fa-f]/.test(text[i - 1] ?? ''))) {
      // A quote after a digit is a digit separator (1'000), not a character literal.
      const quote = text[i];
      let stop = i + 1;
      while (stop < text.length && text[stop] !== quote && text[stop] !== '\n') stop += text[stop] === '\\' ? 2 : 1;
      stop = Math.min(stop + 1, text.length);
      out += quote + blank(text.slice(i + 1, stop - 1)) + quote;
      i = stop;
    } else {
      out += text[i];
      i += 1;
    }
  }
  return out;
}

const QUALIFIERS = /^(\s*(const|volatile|noexcept|override|final|mutable|try|&&?|->\s*[\w:<>,&*\s]+))*\s*$/;

// A declarator: a top-level `)` that only qualifiers or a constructor's initialiser list follow.
function isFunctionHead(head) {
  if (/\b(namespace|class|struct|union|enum)\b/.test(head.replace(/\([^]*\)/g, '()')) && !/\)\s*[^()]*$/.test(head)) return false;
  if (/=/.test(topLevel(head)) && !/\]\s*(\([^]*\))?[^=]*$/.test(head)) return false; // an initialised variable
  let depth = 0;
  for (let i = head.length - 1; i >= 0; i--) {
    const c = head[i];
    if (c === '>' && head[i - 1] === '-') continue; // a trailing return type's arrow, not a bracket
    if (c === ')' || c === ']' || c === '}' || c === '>') depth += 1;
    else if (c === '(' || c === '[' || c === '{' || c === '<') depth -= 1;
    if (c === ')' && depth === 1) {
      const after = head.slice(i + 1);
      if (QUALIFIERS.test(after)) return true;
      // A constructor's initialiser list: `) : member_(…), other_{…}`.
      const init = /^\s*(noexcept\s*)?:(?!:)/.exec(after);
      if (init && /[)}]\s*$/.test(after)) return true;
    }
  }
  return false;
}

// The head with every bracketed group emptied, so that `=` inside default arguments or templates is not seen.
function topLevel(head) {
  let out = '';
  let depth = 0;
  for (const c of head) {
    if ('([{'.includes(c)) depth += 1;
    if (depth === 0) out += c;
    if (')]}'.includes(c)) depth -= 1;
  }
  return out;
}

function nameOfCpp(head) {
  const declarator = head.replace(/\s+/g, ' ').trim();
  const call = /([~\w:]+(?:operator\s*[^\s(]+)?|operator\(\))\s*\(/.exec(declarator.replace(/<[^<>()]*>/g, ''));
  return call ? call[1] : declarator.slice(0, 60);
}

export function cppFunctions(text) {
  const code = blankCpp(text);
  const found = [];
  const lineAt = (offset) => code.slice(0, offset).split('\n').length;
  let headStart = 0;
  let i = 0;
  const skipBraces = (open) => {
    let depth = 0;
    for (let j = open; j < code.length; j++) {
      if (code[j] === '{') depth += 1;
      else if (code[j] === '}' && --depth === 0) return j;
    }
    return code.length - 1;
  };
  let parens = 0;
  while (i < code.length) {
    const c = code[i];
    if (c === '(') parens += 1;
    else if (c === ')') parens -= 1;
    else if (c === ';' && parens === 0) headStart = i + 1;
    else if (c === '}' && parens === 0) headStart = i + 1; // a namespace or class scope closes
    else if (c === '{') {
      const head = code.slice(headStart, i);
      if (parens > 0 || isBraceInit(head)) {
        // A braced initialiser (a default argument, a member's `{…}` in an initialiser list, `x = {…}`).
        i = skipBraces(i) + 1;
        continue;
      }
      if (/\b(namespace|extern|class|struct|union)\b/.test(head) && !isFunctionHead(head)) {
        headStart = i + 1; // scan inside
      } else if (isFunctionHead(head)) {
        const end = skipBraces(i);
        const start = headStart + head.search(/\S/);
        const first = lineAt(start);
        found.push({ name: nameOfCpp(head), line: first, lines: lineAt(end) - first + 1 });
        i = end + 1;
        headStart = i;
        continue;
      } else {
        i = skipBraces(i) + 1; // an enum's list, a variable's initialiser
        continue;
      }
    }
    i += 1;
  }
  return found;
}

// A `{` that continues its head rather than ending it: a member's braced initialiser in a constructor's list
// (`) : first_(a), second_{`), or a variable's (`Type name{`, `x = {`).
function isBraceInit(head) {
  const flat = topLevel(head);
  if (/=\s*$/.test(flat)) return true;
  if (/\)\s*(noexcept\s*)?:(?!:)[^]*[\w>]\s*$/.test(head)) return true;
  return false;
}

// ---- the report ----

export function measure(tree) {
  const all = [];
  for (const path of walk(join(tree, 'web/src'), (p) => p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.includes(`${join('web', 'src', 'wasm')}`))) {
    for (const f of tsFunctions(path, readFileSync(path, 'utf8'))) all.push({ file: relative(tree, path), ...f });
  }
  for (const path of walk(join(tree, 'cpp'), (p) => /\.(cpp|hpp)$/.test(p))) {
    for (const f of cppFunctions(readFileSync(path, 'utf8'))) all.push({ file: relative(tree, path), ...f });
  }
  return all;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const all = measure(root);
  const longest = [...all].sort((a, b) => b.lines - a.lines);
  const ts_count = all.filter((f) => f.file.endsWith('.ts')).length;
  console.log(`${all.length} functions measured (${ts_count} in web/src, ${all.length - ts_count} in cpp/); the longest:`);
  for (const f of longest.slice(0, 8)) console.log(`  ${String(f.lines).padStart(4)}  ${f.file}:${f.line} ${f.name}`);
  const over = longest.filter((f) => f.lines > LIMIT);
  if (over.length === 0) {
    console.log(`no function over ${LIMIT} lines`);
  } else {
    console.log(`\n${over.length} function${over.length === 1 ? '' : 's'} over ${LIMIT} lines:`);
    for (const f of over) console.log(`${f.file}:${f.line}: ${f.name} is ${f.lines} lines`);
    process.exitCode = 1;
  }
}
