// Typesets every lesson's formula at build time (and in the dev server), so a page never shows raw TeX
// and never loads KaTeX's script: only its stylesheet and the fonts a formula uses.
//
// A lesson writes `formula: String.raw`…`` (or `formula: null`) in site/src/lessons/*.js. This plugin
// replaces the literal with `{ tex, tree }`: the TeX, and KaTeX's output (HTML and MathML, whose
// <annotation> keeps the TeX) as a tree, [tag, attributes, ...children] or a text string, which
// site/src/page.js builds with createElement and CSSOM. Not an HTML string: the site's policy
// (csp.js) refuses HTML strings in DOM sinks and style attributes, and KaTeX's markup has both.
// A formula KaTeX cannot typeset, or a literal with `${` (not known until it runs), fails the build.
import katex from 'katex';

const LESSON_FILE = /[\\/]site[\\/]src[\\/]lessons[\\/][^\\/]+\.js$/;
const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'" };

const unescape = (text, where) => text.replace(/&([^;&\s]*);/g, (whole, name) => {
  if (!(name in ENTITIES)) throw new Error(`${where}: KaTeX wrote an unexpected entity ${whole}`);
  return ENTITIES[name];
});

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
    for (const [, key, value] of attributes.matchAll(attribute)) {
      if (/^on|^(href|src|srcdoc|action|formaction)$/i.test(key)) throw new Error(`${where}: KaTeX wrote a ${key} attribute`);
      if (key === 'xmlns') continue;  // the page creates <svg> and <math> in their namespaces
      if (key === 'style') {
        attrs.style = Object.fromEntries(unescape(value, where).split(';').filter((d) => d.trim()).map((declaration) => {
          const colon = declaration.indexOf(':');
          return [declaration.slice(0, colon).trim(), declaration.slice(colon + 1).trim()];
        }));
      } else {
        attrs[key] = unescape(value, where);
      }
    }
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

export function formulaPlugin() {
  return {
    name: 'attnlab-formulas',
    enforce: 'pre',
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
