// What a lesson page shows before its interactive part exists, as trees (tree.js), below the site
// header (header.js): the h1, the introduction, the formula and the lesson body saying what it loads. page.js builds them;
// site/prerender-plugin.js writes the same trees into each lesson's HTML at build time, so on a slow
// phone the text is readable while the scripts and attnlab's module are still on their way.
import { LESSONS } from './lessons.js';

// What the lesson body names while it waits: first attnlab's module (then page.js names the rest).
export const FIRST_LOADING = 'attnlab’s WebAssembly module';
export const loadingText = (what) => `Loading ${what}…`;

// The lesson's title as the h1, its introduction's paragraphs, and its formula's tree (or null).
export function headingTrees(slug, intro, formulaTree) {
  const meta = LESSONS.find((l) => l.slug === slug);
  if (!meta) throw new Error(`no lesson named ${slug} in lessons.js`);
  return [['h1', {}, meta.title], ...intro.map((p) => ['p', { class: 'intro' }, p]),
    ...(formulaTree ? [['div', { class: 'formula' }, formulaTree]] : [])];
}

// The lesson body while attnlab's module loads.
export const loadingBodyTree = () => ['section', { class: 'lesson-body', 'aria-label': 'Interactive lesson', 'aria-busy': 'true' },
  ['p', { class: 'lesson-loading', role: 'status' }, loadingText(FIRST_LOADING)]];

export const pageTitle = (slug) => `${LESSONS.find((l) => l.slug === slug).title} · attnlab`;
