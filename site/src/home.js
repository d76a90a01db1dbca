// The home page: what attnlab is and the lessons in order.
import '../styles.css';

import { el } from './dom.js';
import { LESSONS } from './lessons.js';
import { siteHeader } from './page.js';

document.body.replaceChildren(
  siteHeader(null),
  el('main', { id: 'main' },
    el('h1', { text: 'Attention, with numbers you can poke' }),
    el('p', { class: 'intro', text: 'You have seen softmax(QKᵀ/√d_k)V, split_heads and torch.tril masks as code. ' +
      'Here every matrix is computed live by attnlab — a C++ implementation compiled to WebAssembly that agrees ' +
      'with PyTorch — and you can step through it, edit any number and watch what changes downstream.' }),
    el('h2', { text: 'Lessons' }),
    el('ol', { class: 'lesson-list' }, LESSONS.map((l) => el('li', {}, el('a', { href: `./lessons/${l.slug}.html`, text: l.title }))))),
);
document.body.dataset.ready = 'true';
