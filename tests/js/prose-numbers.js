// Every number typed into the site's prose: the lessons' and the home page's text as their sources
// write it. A number inside ${…} of a template literal is computed (from the package or the page's
// settings, live); a digit in the fixed text of a string is typed, and the site's rule is that a typed
// number is either notation (the rules below) or quoted from a committed measurement
// (site/quoted-figures.js). What is code, not prose, is left out by where it stands in the module:
// imports, property keys, the lessonPage fields that hold code, TeX or settings (pytorch, call,
// formula, schema, …) and the module-level names they use, an el() call's tag name, attributes the
// learner never reads (class, id, …), and a string that is nothing but a number (a control's value).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { parseAst } from 'vite';

import { lessonSourceFiles } from '../../site/lesson-files.js';

// PROSE_ROOT: another checkout to scan (the test's check that it fails on an older text).
const ROOT = process.env.PROSE_ROOT ?? new URL('../../', import.meta.url).pathname;

// The modules that write the lessons' and the home page's words.
export const PROSE_FILES = [
  ...lessonSourceFiles(pathToFileURL(join(ROOT, 'site/'))),
  'site/src/home.js', 'site/src/home-previews.js',
  // shared sections and helpers that write a lesson's text (a lesson's own are in its folder, listed above)
  'site/src/gpt-heads.js', 'site/src/gpt-model.js', 'site/src/training-run.js',
];

const CODE_FIELDS = new Set(['formula', 'pytorch', 'call', 'schema', 'slug', 'prefetch', 'training', 'lab']);
const UNREAD_ATTRIBUTES = new Set(['class', 'id', 'key', 'href', 'type', 'role', 'download', 'style', 'tabindex',
  'aria-live', 'rootMargin', 'start', 'value', 'encoding',
  'shippedFiles']);  // a program's files as the repository holds them, for the test command

const keyName = (p) => (p.key.type === 'Identifier' ? p.key.name : p.key.value);

// Module-level names a code field uses: the code it shows is built from them (TRANSLATE_PYTORCH, say).
function namesUsed(node, into = new Set()) {
  if (!node || typeof node !== 'object') return into;
  if (Array.isArray(node)) { node.forEach((n) => namesUsed(n, into)); return into; }
  if (node.type === 'Identifier') into.add(node.name);
  for (const [k, v] of Object.entries(node)) if (k !== 'type') namesUsed(v, into);
  return into;
}

function codeNames(ast) {
  const names = new Set();
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) { node.forEach(visit); return; }
    if (node.type === 'CallExpression' && node.callee.name === 'lessonPage') {
      for (const p of node.arguments[0]?.properties ?? []) if (p.type === 'Property' && CODE_FIELDS.has(keyName(p))) namesUsed(p.value, names);
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'type') visit(v);
  };
  visit(ast);
  return names;
}

// The text of a string expression ('…', `…${x}…`, '…' + x + '…') with computed parts as N, or null
// when the expression is not a string; `visit` is called on each computed part.
function sentence(node, visit) {
  if (node.type === 'Literal') return typeof node.value === 'string' ? node.value : null;
  if (node.type === 'TemplateLiteral') {
    node.expressions.forEach(visit);
    return node.quasis.map((q) => q.value.cooked).join('N');
  }
  if (node.type !== 'BinaryExpression' || node.operator !== '+') return null;
  const stringy = (n) => n.type === 'TemplateLiteral' || (n.type === 'Literal' && typeof n.value === 'string') ||
    (n.type === 'BinaryExpression' && n.operator === '+' && (stringy(n.left) || stringy(n.right)));
  if (!stringy(node)) return null;
  const part = (n) => {
    const text = stringy(n) ? sentence(n, visit) : null;
    if (text !== null) return text;
    visit(n);
    return 'N';
  };
  return part(node.left) + part(node.right);
}

// The prose strings of a module's source: [{ text, start }] (start: the offset in the source).
export function proseStrings(source) {
  const ast = parseAst(source);
  const code = codeNames(ast);
  // The module-level declarations of those names (TRANSLATE_PYTORCH = '…'): code, not prose.
  const codeDeclarations = new Set(ast.body.flatMap((statement) => {
    const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement;
    if (declaration?.type === 'VariableDeclaration') return declaration.declarations.filter((d) => code.has(d.id.name));
    if (declaration?.type === 'FunctionDeclaration' && code.has(declaration.id.name)) return [declaration];
    return [];
  }));
  const found = [];
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) { node.forEach(visit); return; }
    switch (node.type) {
      case 'ImportDeclaration': case 'ImportExpression': case 'ExportAllDeclaration': return;
      case 'Property': {
        const key = keyName(node);
        if (CODE_FIELDS.has(key) && node.value.type !== 'ObjectExpression') return;
        if (key === 'schema' || UNREAD_ATTRIBUTES.has(key)) return;
        visit(node.value);
        return;
      }
      case 'VariableDeclarator': case 'FunctionDeclaration':
        if (codeDeclarations.has(node)) return;
        break;
      case 'CallExpression':
        if (node.callee.name === 'lessonPage') {
          for (const p of node.arguments[0]?.properties ?? []) if (!CODE_FIELDS.has(keyName(p))) visit(p.value);
          return;
        }
        if (node.callee.name === 'el') { node.arguments.slice(1).forEach(visit); return; }  // el(tag, …)
        break;
      case 'Literal': case 'TemplateLiteral': case 'BinaryExpression': {
        // One sentence as written: literals joined with +, each ${…} or other operand read as N, so a
        // number is read in its sentence ("(N, 3, N)"); the operands are visited on their own.
        const text = sentence(node, visit);
        if (text !== null) { found.push({ text, start: node.start }); return; }
        break;
      }
      default:
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'type') visit(v);
  };
  visit(ast);
  return found.filter((s) => !/^\s*[\d.]+\s*$/.test(s.text));  // a control's value, not words
}

// A number as prose writes it: 1,611 · 3.14 · 1e-5 · 95% · ½ is not one.
const NUMBER = /\d+(?:[.,]\d+)*(?:e[−-]?\d+)?%?/g;
// Nouns whose number names a place in the notation (layer 1, head 3, position 0, lesson 5), not a
// measurement; a list of them continues the naming ("dimensions 0, 1, 4 and 8").
const INDEX_NOUN = /\b(?:layers?|heads?|lessons?|positions?|sentences?|items?|pairs?|dimensions?|parts?|steps?|rows?|columns?|cop(?:y|ies)|seeds?|ids?|keys?|queries|query|tokens?)\s+$/i;
const LIST_GLUE = /^(?:,\s*|\s+(?:and|or|to)\s+|\s*[–…]\s*)$/;
// Next to these the number is part of a formula written in words (12·d², 1/√d_k, 2i, d = 16).
const FORMULA_BEFORE = /[·×/^√=_]\s*$|[A-Za-z_]-?$/;
const FORMULA_AFTER = /^(?:\s*[·×/^²³=]|[a-zα-ω_(]|\s*[+−]\s*…)/;
// A parenthesised list of numbers and names is a call's arguments or a shape: permute(2, 0, 3, 1, 4),
// (batch, seq, 3, heads, d_k); a year after "et al.," dates a citation.
const TUPLE = /^\s*[\w.−-]+\s*(?:,\s*[\w.−-]+\s*)+$/;
const CITATION = /et al\.,\s*$/;

// The text of the innermost parentheses around `index`, and the character before them ('' if none).
function enclosing(text, index) {
  let depth = 0, open = -1;
  for (let i = index - 1; i >= 0; i--) {
    if (text[i] === ')') depth++;
    else if (text[i] === '(' && depth-- === 0) { open = i; break; }
  }
  if (open < 0) return null;
  const close = text.indexOf(')', index);
  return close < 0 ? null : { inside: text.slice(open + 1, close), callee: text[open - 1] ?? '' };
}
const inCallOrShape = (text, index) => {
  const span = enclosing(text, index);
  return span !== null && TUPLE.test(span.inside) && (/[\w\]]/.test(span.callee) || /[A-Za-z_]/.test(span.inside));
};

// A proportion written in words is a number too: "two samples in five", "one in ten".
const WORD_VALUES = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  twenty: 20, hundred: 100, thousand: 1000 };
const RATIO_WORDS = /\b(one|two|three|four|five|six|seven|eight|nine|ten)\b(?:\s+[a-z]+){0,2}?\s+in\s+(?:a\s+)?(two|three|four|five|six|seven|eight|nine|ten|twenty|hundred|thousand)\b/gi;

// A figure's value: 1,611 → 1611, 95% → 0.95, "two samples in five" → 0.4.
export function figureValue(figure) {
  const words = new RegExp(RATIO_WORDS.source, 'i').exec(figure);
  if (words) return WORD_VALUES[words[1].toLowerCase()] / WORD_VALUES[words[2].toLowerCase()];
  const n = Number(figure.replace(/,/g, '').replace('−', '-').replace(/%$/, ''));
  return figure.endsWith('%') ? n / 100 : n;
}

// The typed numbers of one prose string that the notation rules leave: [{ number, index }].
export function typedNumbers(text) {
  const out = [...text.matchAll(RATIO_WORDS)].map((m) => ({ number: m[0], index: m.index }));
  let previousIndexEnd = -1;
  for (const match of text.matchAll(NUMBER)) {
    const { index } = match;
    const number = match[0];
    const before = text.slice(0, index), after = text.slice(index + number.length);
    const continuesList = previousIndexEnd >= 0 && LIST_GLUE.test(text.slice(previousIndexEnd, index));
    const isIndex = INDEX_NOUN.test(before) || continuesList;
    previousIndexEnd = isIndex ? index + number.length : -1;
    if (isIndex) continue;
    if (/^[01](?:\.0+)?$/.test(number)) continue;                     // 0 and 1: the definitions' constants
    if (FORMULA_BEFORE.test(before) || FORMULA_AFTER.test(after)) continue;
    if (inCallOrShape(text, index) || CITATION.test(before)) continue;
    if (/^\s*$/.test(before) && /^\.\s/.test(after)) continue;       // "1. " numbering a list
    out.push({ number, index });
  }
  return out.sort((a, b) => a.index - b.index);
}

// Every typed number of the prose files: [{ file, line, number, text }].
export function proseNumbers(files = PROSE_FILES) {
  return files.flatMap((file) => {
    const source = readFileSync(join(ROOT, file), 'utf8');
    return proseStrings(source).flatMap(({ text, start }) => typedNumbers(text).map(({ number, index }) => ({
      file, number, index, text, line: source.slice(0, start).split('\n').length,
    })));
  });
}

export const readRepoFile = (path) => readFileSync(join(ROOT, path), 'utf8');
export const repoFileSize = (path) => statSync(join(ROOT, path)).size;
