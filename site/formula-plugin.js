// Typesets every lesson's formula at build time (and in the dev server), so a page never shows raw TeX
// and never loads KaTeX's script: only its stylesheet and the fonts a formula uses.
//
// A lesson writes `formula: String.raw`…`` (or `formula: null`) in its folder's lesson.js. This plugin
// replaces the literal with `{ tex, tree }`: the TeX, and KaTeX's output (HTML and MathML, whose
// <annotation> keeps the TeX) as a tree (site/src/tree.js), which site/src/page.js builds with
// createElement and site/prerender-plugin.js writes into the lesson's HTML. Not an HTML string: the
// site's policy (csp.js) refuses HTML strings in DOM sinks and style attributes, and KaTeX's markup
// has both; its inline styles become classes of a generated stylesheet (virtual:attnlab-formula-styles.css,
// which page.js imports).
// A formula KaTeX cannot typeset, or a literal with `${` (not known until it runs), fails the build.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

import katex from 'katex';

import { lessonSourceFiles } from './lesson-files.js';

const LESSON_FILE = /[\\/]site[\\/]src[\\/]lessons[\\/][^\\/]+[\\/][^\\/]+\.js$/;  // a module in a lesson's folder
const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'" };

const unescape = (text, where) => text.replace(/&([^;&\s]*);/g, (whole, name) => {
  if (!(name in ENTITIES)) throw new Error(`${where}: KaTeX wrote an unexpected entity ${whole}`);
  return ENTITIES[name];
});

// KaTeX's inline style declarations ("height:1.2em;vertical-align:-0.3em;") → a class named after
// their hash, the same name in every build; styleRules() is the stylesheet of every class handed out.
// The rules are !important, as an inline style would win over KaTeX's own, more specific rules.
const STYLE_CLASSES = new Map();  // class → declarations
export function styleClass(declarations) {
  const normalised = declarations.split(';').map((d) => d.trim()).filter(Boolean).map((d) => {
    const colon = d.indexOf(':');
    return `${d.slice(0, colon).trim()}:${d.slice(colon + 1).trim()}`;
  }).join(';');
  const name = `kx-${createHash('sha256').update(normalised).digest('hex').slice(0, 10)}`;
  STYLE_CLASSES.set(name, normalised);
  return name;
}
export const styleRules = () => [...STYLE_CLASSES].sort(([a], [b]) => (a < b ? -1 : 1))
  .map(([name, declarations]) => `.${name}{${declarations.split(';').map((d) => `${d}!important`).join(';')}}`).join('\n');

// KaTeX's markup → the tree. A strict reader of what KaTeX writes (every attribute double-quoted,
// every element closed or self-closed, the five escapes): anything else is an error, not a guess.
export function markupTree(markup, where = 'formula') {
  const root = ['root', {}];
  const open = [root];
  const tag = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[^\s"'>/=]+\s*=\s*"[^"]*")*)\s*(\/?)>/y;
  const attribute = /\s+([^\s"'>/=]+)\s*=\s*"([^"]*)"/g;
  let at = 0;
  while (at < markup.length) {
    if (markup[at] !== '<') {
      const end = markup.indexOf('<', at);
      const text = markup.slice(at, end === -1 ? undefined : end);
      open.at(-1).push(unescape(text, where));
      at += text.length;
      continue;
    }
    tag.lastIndex = at;
    const match = tag.exec(markup);
    if (!match) throw new Error(`${where}: cannot read KaTeX's markup at “${markup.slice(at, at + 40)}”`);
    at = tag.lastIndex;
    const [, closing, name, attributes, selfClosing] = match;
    if (closing) {
      if (open.length === 1 || open.at(-1)[0] !== name) throw new Error(`${where}: </${name}> closes nothing in KaTeX's markup`);
      open.pop();
      continue;
    }
    const attrs = {};
    const styles = [];
    for (const [, key, value] of attributes.matchAll(attribute)) {
      if (/^on|^(href|src|srcdoc|action|formaction)$/i.test(key)) throw new Error(`${where}: KaTeX wrote a ${key} attribute`);
      if (key === 'xmlns') continue;  // the page creates <svg> and <math> in their namespaces
      if (key === 'style') {
        styles.push(unescape(value, where));
      } else {
        attrs[key] = unescape(value, where);
      }
    }
    // An inline style becomes a class of the generated stylesheet (styleClass); the policy refuses style attributes.
    if (styles.length) attrs.class = [attrs.class, styleClass(styles.join(';'))].filter(Boolean).join(' ');
    const element = [name, attrs];
    open.at(-1).push(element);
    if (!selfClosing) open.push(element);
  }
  if (open.length !== 1) throw new Error(`${where}: <${open.at(-1)[0]}> is never closed in KaTeX's markup`);
  return root.slice(2);
}

// The TeX → { tex, tree } (the tree: one element, KaTeX's span.katex-display).
export function typeset(tex, where) {
  let markup;
  try {
    markup = katex.renderToString(tex, { displayMode: true, output: 'htmlAndMathml', throwOnError: true, strict: 'error' });
  } catch (error) {
    throw new Error(`${where}: KaTeX cannot typeset the formula: ${error.message}`);
  }
  const tree = markupTree(markup, where);
  if (tree.length !== 1 || typeof tree[0] === 'string') throw new Error(`${where}: KaTeX's markup is not one element`);
  return { tex, tree: tree[0] };
}

// The end of the String.raw literal whose text starts at `start` (the index after its backtick).
function literalEnd(code, start, where) {
  for (let i = start; i < code.length; i++) {
    if (code[i] === '\\') i++;
    else if (code[i] === '`') return i;
    else if (code[i] === '$' && code[i + 1] === '{') {
      throw new Error(`${where}: the formula has a \${…} substitution; it is typeset at build time, so it must be plain TeX`);
    }
  }
  throw new Error(`${where}: the formula's String.raw literal never ends`);
}

// A lesson module's source with each `formula: String.raw`…`` replaced by its { tex, tree }. The
// replacement keeps the literal's line breaks after it, so later lines keep their numbers.
export function typesetLesson(code, file) {
  let out = '';
  let from = 0;
  for (const found of code.matchAll(/^[ \t]*formula:[ \t]*/gm)) {
    const start = found.index + found[0].length;
    if (start < from) continue;
    const line = code.slice(0, found.index).split('\n').length;
    const where = `${file}:${line}`;
    if (code.startsWith('null', start)) continue;
    if (!code.startsWith('String.raw`', start)) {
      throw new Error(`${where}: a lesson's formula must be a String.raw\`…\` literal (typeset at build time) or null`);
    }
    const textStart = start + 'String.raw`'.length;
    const end = literalEnd(code, textStart, where);
    const tex = code.slice(textStart, end).replace(/\r\n?/g, '\n');  // what String.raw would give
    out += code.slice(from, start) + JSON.stringify(typeset(tex, where)) + '\n'.repeat(tex.split('\n').length - 1);
    from = end + 1;
  }
  return from === 0 ? null : out + code.slice(from);
}

// Every lesson module in site/src/lessons/ typeset, so that the stylesheet holds each formula's classes
// whichever modules the bundler has transformed so far.
function typesetEveryLesson() {
  for (const file of lessonSourceFiles()) typesetLesson(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'), file);
}

const STYLES_ID = 'virtual:attnlab-formula-styles.css';
export function formulaPlugin() {
  return {
    name: 'attnlab-formulas',
    enforce: 'pre',
    resolveId(id) {
      return id === STYLES_ID ? `\0${STYLES_ID}` : null;
    },
    load(id) {
      if (id !== `\0${STYLES_ID}`) return null;
      typesetEveryLesson();
      return `/* KaTeX's inline styles of the lessons' formulas, as classes (site/formula-plugin.js) */\n${styleRules()}\n`;
    },
    transform(code, id) {
      const file = id.split('?')[0];
      if (!LESSON_FILE.test(file)) return null;
      try {
        const typeset = typesetLesson(code, file);
        return typeset === null ? null : { code: typeset, map: null };
      } catch (error) {
        this.error(error.message);
      }
    },
  };
}
