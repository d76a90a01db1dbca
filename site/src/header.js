// The header every page shares (the home page too, which loads nothing else of the lesson frame):
// the brand link home and, on a lesson, the previous and next lessons.
import { el } from './dom.js';
import { LESSONS } from './lessons.js';

export function siteHeader(current) {
  const index = LESSONS.findIndex((l) => l.slug === current);
  const link = (lesson, rel) => lesson
    ? el('a', { href: `./${lesson.slug}.html`, rel, text: `${rel === 'prev' ? '← ' : ''}${lesson.title}${rel === 'next' ? ' →' : ''}` })
    : el('span');
  return el('header', { class: 'site-header' },
    el('a', { class: 'brand', href: current ? '../index.html' : './index.html', text: 'attnlab' }),
    current ? el('nav', { class: 'lesson-nav', 'aria-label': 'Lessons' },
      link(LESSONS[index - 1], 'prev'), el('span', { class: 'lesson-count', text: `Lesson ${index + 1} of ${LESSONS.length}` }),
      link(LESSONS[index + 1], 'next')) : null);
}
