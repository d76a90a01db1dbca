// The learner's progress, kept in this browser only (localStorage; nothing leaves the machine): the
// lessons opened, so the home page can tick them and offer the next one. Storage that is full,
// disabled or blocked (private windows, file://) just means no progress is kept.
import { LESSONS } from './lessons.js';

const KEY = 'attnlab-progress';

export function openedLessons() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return new Set(Array.isArray(saved) ? saved.filter((slug) => LESSONS.some((l) => l.slug === slug)) : []);
  } catch {
    return new Set();
  }
}

export function markOpened(slug) {
  try {
    const opened = openedLessons();
    if (opened.has(slug)) return;
    opened.add(slug);
    localStorage.setItem(KEY, JSON.stringify([...opened]));
  } catch {
    // no storage: nothing to remember
  }
}

export function forgetProgress() {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // nothing was kept
  }
}

// The first lesson, in order, not opened yet (the first lesson when none is; null when all are).
export function nextLesson(opened = openedLessons()) {
  return LESSONS.find((l) => !opened.has(l.slug)) ?? null;
}
