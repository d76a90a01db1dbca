// Where a lesson's files live: every lesson is one folder, site/src/lessons/<slug>/, holding everything it
// owns — its page (lesson.js), its DOM-free parts (parts.js), its PyTorch program (program.py) and the
// program's settings (settings.js, exporting PROGRAM), and any module only it uses under a name that says
// what it is (worker.js, a view of its own). What two or more lessons, the home page or the package's
// components use stays in site/src/ (and the programs' shared model parts in site/snippets/). The build,
// the prerenderer and the tests ask here instead of spelling the path.
import { readdirSync } from 'node:fs';

const SITE = new URL('./', import.meta.url);

// → the lesson's page module as a path inside site/, e.g. 'src/lessons/rotary/lesson.js'.
export const lessonModule = (slug) => `src/lessons/${slug}/lesson.js`;

// → the lesson page module's file URL.
export const lessonModuleUrl = (slug) => new URL(lessonModule(slug), SITE);

// Every lesson's modules, as paths from the repository's root: every .js file in a lesson's folder (its
// page, its parts, its settings), sorted. root: another checkout's site/ (default this one's).
export function lessonSourceFiles(root = SITE) {
  const dir = new URL('src/lessons/', root);
  return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory())
    .flatMap((entry) => readdirSync(new URL(`${entry.name}/`, dir)).filter((f) => f.endsWith('.js'))
      .map((f) => `site/src/lessons/${entry.name}/${f}`)).sort();
}

// Every lesson's slug: its folder's name.
export const lessonSlugs = () => readdirSync(new URL('src/lessons/', SITE), { withFileTypes: true })
  .filter((e) => e.isDirectory()).map((e) => e.name).sort();
