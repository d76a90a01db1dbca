// Writes each lesson's first view into its HTML at build time (and in the dev server): the site header,
// the h1, the introduction, the formula as KaTeX typesets it, and the lesson body saying what it loads:
// the trees page.js builds (src/header.js, src/lesson-frame.js), as HTML. On a slow phone the text is on
// screen once the page and its stylesheet have arrived, before any script (issue 28, item 12); page.js
// then builds the same nodes in their place and goes on to the interactive part.
//
// The introduction and the formula are read from the lesson module's source, the call
// lessonPage({ slug, intro: [...], formula, … }): each paragraph a string literal, or literals joined
// with +; the formula a String.raw literal or null (formula-plugin.js). Anything else fails the build,
// naming the file: the page could not show it before its script runs.
import { readFileSync } from 'node:fs';
import { parseAst } from 'vite';

import { FILE_ENTRIES, PREFETCH_FEATURES } from '../web/lib/registry.js';
import { typeset } from './formula-plugin.js';
import { lessonModule, lessonModuleUrl } from './lesson-files.js';
import { headerTree } from './src/header.js';
import { headingTrees, loadingBodyTree, pageTitle } from './src/lesson-frame.js';
import { treeHtml } from './src/tree.js';

const LESSON_PAGE = /[\\/]site[\\/]lessons[\\/]([\w-]+)\.html$/;

function staticString(node, where) {
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  if (node.type === 'BinaryExpression' && node.operator === '+') return staticString(node.left, where) + staticString(node.right, where);
  throw new Error(`${where}: each paragraph of intro must be a string literal (or literals joined with +), ` +
    'as it is written into the page\'s HTML at build time');
}

// The object given to lessonPage(…) in a module's AST, or null.
function lessonPageArgument(node) {
  if (!node || typeof node !== 'object') return null;
  if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'lessonPage' &&
      node.arguments[0]?.type === 'ObjectExpression') return node.arguments[0];
  for (const value of Object.values(node)) {
    for (const child of Array.isArray(value) ? value : [value]) {
      const found = lessonPageArgument(child);
      if (found) return found;
    }
  }
  return null;
}

// The lessonPage({ … }) object of a lesson module's source, and a reader of its literal properties.
function lessonProperties(source, where) {
  const lesson = lessonPageArgument(parseAst(source));
  if (!lesson) throw new Error(`${where}: no lessonPage({ … }) call`);
  return (name) => lesson.properties.find((p) => p.type === 'Property' && !p.computed && p.key.name === name)?.value;
}

// A lesson module's source → { intro: string[], formulaTree } for its first view.
export function lessonFirstView(source, where) {
  const property = lessonProperties(source, where);
  const intro = property('intro');
  if (intro?.type !== 'ArrayExpression') throw new Error(`${where}: intro must be an array of paragraphs written out in the call`);
  const formula = property('formula');
  let formulaTree = null;
  if (formula && !(formula.type === 'Literal' && formula.value === null)) {
    const isRaw = formula.type === 'TaggedTemplateExpression' && formula.tag.type === 'MemberExpression' &&
      formula.tag.object.name === 'String' && formula.tag.property.name === 'raw' && formula.quasi.expressions.length === 0;
    if (!isRaw) throw new Error(`${where}: a lesson's formula must be a String.raw\`…\` literal or null`);
    formulaTree = typeset(formula.quasi.quasis[0].value.raw, where).tree;
  }
  return { intro: intro.elements.map((p) => staticString(p, where)), formulaTree };
}

// The lesson page's HTML with its first view in the body and its title.
export function prerenderLesson(html, slug, source, where) {
  const { intro, formulaTree } = lessonFirstView(source, where);
  const main = ['main', { id: 'main' }, ...headingTrees(slug, intro, formulaTree), loadingBodyTree()];
  const body = /<body>/;
  const title = /<title>[^<]*<\/title>/;
  if (!body.test(html) || !title.test(html)) throw new Error(`${where}: the page has no <body> or <title> to fill`);
  return html.replace(title, `<title>${treeHtml(pageTitle(slug))}</title>`)
    .replace(body, `<body>${treeHtml(headerTree(slug))}${treeHtml(main)}`);
}

// The KaTeX faces a typeset formula needs, from the classes in its markup (katex.css: .katex is set in
// KaTeX_Main, .mathnormal in KaTeX_Math italic, sized delimiters and operators in KaTeX_Size1–4). KaTeX's
// faces are font-display: block, so a formula stays blank until they arrive: the page asks for them at
// once (<link rel="preload">) instead of after its stylesheet and scripts.
const FACES = [
  [/class="katex"/, 'KaTeX_Main-Regular'],
  [/\bmathnormal\b/, 'KaTeX_Math-Italic'],
  [/\bdelimsizing size1\b|\bsmall-op\b/, 'KaTeX_Size1-Regular'],
  [/\bdelimsizing size2\b|\blarge-op\b/, 'KaTeX_Size2-Regular'],
  [/\bdelimsizing size3\b/, 'KaTeX_Size3-Regular'],
  [/\bdelimsizing size4\b/, 'KaTeX_Size4-Regular'],
];
export const facesOf = (html) => FACES.filter(([uses]) => uses.test(html)).map(([, face]) => face);

// The package features a lesson prefetches (its `prefetch: [...]` literals, and 'training' with
// `training: true`), as page.js passes them to attnlab's prefetch().
export function lessonFeatures(source, where) {
  const property = lessonProperties(source, where);
  const list = property('prefetch');
  const features = list ? list.elements.map((e) => staticString(e, where)) : [];
  const training = property('training');
  if (training?.type === 'Literal' && training.value === true) features.unshift('training');
  return features;
}

// <link> tags that start a lesson's module and model files with the page instead of after its scripts
// (on Fast 3G the lesson script's prefetch() ran 1.3 s after the page arrived). The SIMD build's, which
// every current browser runs; prefetch() then fetches the same URLs (fetch(): CORS mode, same-origin
// credentials, as crossorigin="" preloads) and gets these responses.
function featurePreloads(features, bundle, where) {
  const names = Object.keys(bundle);
  const one = (what, found) => {
    if (!found) throw new Error(`${where}: no ${what} in the bundle to preload`);
    return `../${found}`;
  };
  const fetchTag = (href) => ({ tag: 'link', injectTo: 'head', attrs: { rel: 'preload', href, as: 'fetch', crossorigin: '' } });
  return features.flatMap((feature) => {
    const { build, files } = PREFETCH_FEATURES[feature] ?? {};
    if (!build) throw new Error(`${where}: unknown prefetch feature '${feature}'`);
    const prefix = `assets/${build}-simd-`;
    const script = names.find((n) => n.startsWith(prefix) && n.endsWith('.js'));
    const wasm = names.find((n) => n.startsWith(prefix) && n.endsWith('.wasm'));
    return [
      { tag: 'link', injectTo: 'head', attrs: { rel: 'modulepreload', href: one(`${prefix}*.js`, script), crossorigin: '' } },
      fetchTag(one(`${prefix}*.wasm`, wasm)),
      ...files.map((which) => {
        const path = FILE_ENTRIES[which].path;
        return fetchTag(one(path, names.find((n) => bundle[n].originalFileNames?.some((o) => o.endsWith(path)))));
      }),
    ];
  });
}

const lessonSource = (slug) => ({
  source: readFileSync(lessonModuleUrl(slug), 'utf8'),
  where: `site/${lessonModule(slug)}`,
});

export function prerenderPlugin() {
  return [{
    name: 'attnlab-prerender-lessons',
    transformIndexHtml: {
      order: 'pre',
      handler(html, { filename }) {
        const slug = filename.match(LESSON_PAGE)?.[1];
        if (!slug) return html;
        const { source, where } = lessonSource(slug);
        return prerenderLesson(html, slug, source, where);
      },
    },
  }, {
    // After bundling, when the fonts' and the lesson's module and model files' names are known (a build
    // only: the dev server has no bundle).
    name: 'attnlab-preload-lesson-files',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { filename, bundle }) {
        const slug = filename.match(LESSON_PAGE)?.[1];
        if (!slug) return html;
        const files = Object.keys(bundle);
        const { source, where } = lessonSource(slug);
        return {
          html,
          tags: [...facesOf(html).map((face) => {
            const file = files.find((f) => f.startsWith(`assets/${face}-`) && f.endsWith('.woff2'));
            if (!file) throw new Error(`${filename}: no ${face} .woff2 in the bundle to preload`);
            return { tag: 'link', injectTo: 'head', attrs: { rel: 'preload', href: `../${file}`, as: 'font', type: 'font/woff2', crossorigin: '' } };
          }), ...featurePreloads(lessonFeatures(source, where), bundle, where)],
        };
      },
    },
  }];
}
