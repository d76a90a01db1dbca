// The header every page shares (the home page too, which loads nothing else of the lesson frame):
// the brand link home and, on a lesson, the previous and next lessons. A tree (tree.js), so that
// site/prerender-plugin.js writes the same header into each lesson's HTML at build time.
import { LESSONS } from './lessons.js';
import { buildTree } from './tree.js';

export function headerTree(current) {
  const index = LESSONS.findIndex((l) => l.slug === current);
  const link = (lesson, rel) => lesson
    ? ['a', { href: `./${lesson.slug}.html`, rel }, `${rel === 'prev' ? '← ' : ''}${lesson.title}${rel === 'next' ? ' →' : ''}`]
    : ['span', {}];
  const brand = ['a', { class: 'brand', href: current ? '../index.html' : './index.html' }, 'attnlab'];
  if (!current) return ['header', { class: 'site-header' }, brand];
  return ['header', { class: 'site-header' }, brand,
    ['nav', { class: 'lesson-nav', 'aria-label': 'Lessons' },
      link(LESSONS[index - 1], 'prev'), ['span', { class: 'lesson-count' }, `Lesson ${index + 1} of ${LESSONS.length}`],
      link(LESSONS[index + 1], 'next')]];
}

export const siteHeader = (current) => buildTree(headerTree(current));
