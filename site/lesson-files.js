// Where a lesson's page module lives. A lesson in its own folder keeps everything it owns together
// (site/src/lessons/<slug>/lesson.js, its DOM-free parts.js, its PyTorch program.py and the program's
// settings.js); the lessons not yet moved there are one file, site/src/lessons/<slug>.js. The build, the
// prerenderer and the tests ask here instead of spelling either path.
import { existsSync, readdirSync } from 'node:fs';

const SRC = new URL('./src/', import.meta.url);

// → the lesson's page module as a path inside site/, e.g. 'src/lessons/rotary/lesson.js'.
export function lessonModule(slug) {
  const inFolder = `src/lessons/${slug}/lesson.js`;
  return existsSync(new URL(`lessons/${slug}/lesson.js`, SRC)) ? inFolder : `src/lessons/${slug}.js`;
}

// → the lesson page module's file URL.
export const lessonModuleUrl = (slug) => new URL(lessonModule(slug), new URL('./', import.meta.url));

// Every lesson's modules, as paths from the repository's root: the one-file lessons' and every .js file in
// a lesson's folder (its page and its parts), sorted. root: another checkout's site/ (default this one's).
export function lessonSourceFiles(root = new URL('./', import.meta.url)) {
  const dir = new URL('src/lessons/', root);
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory()
    ? readdirSync(new URL(`${entry.name}/`, dir)).filter((f) => f.endsWith('.js')).map((f) => `site/src/lessons/${entry.name}/${f}`)
    : entry.name.endsWith('.js') ? [`site/src/lessons/${entry.name}`] : [])).sort();
}

// Every lesson's slug with a page module, whichever way it is laid out.
export const lessonSlugs = () => readdirSync(new URL('src/lessons/', new URL('./', import.meta.url)), { withFileTypes: true })
  .map((e) => (e.isDirectory() ? e.name : e.name.replace(/\.js$/, ''))).sort();
