// The home page: what attnlab is and the lessons in order.
import '../styles.css';

import { el } from './dom.js';
import { LESSONS, PARTS } from './lessons.js';
import { siteHeader } from './page.js';

document.body.replaceChildren(
  siteHeader(null),
  el('main', { id: 'main' },
    el('h1', { text: 'Attention, with numbers you can poke' }),
    el('p', { class: 'intro', text: 'You have seen softmax(QKᵀ/√d_k)V, split_heads and torch.tril masks as code. ' +
      'Here every matrix is computed live by attnlab — a C++ implementation compiled to WebAssembly that agrees ' +
      'with PyTorch — and you can step through it, edit any number and watch what changes downstream.' }),
    ...PARTS.flatMap((part, i) => [
      el('h2', { text: `Part ${i + 1}: ${part.title}` }),
      part.id === 'trained' ? el('p', { class: 'intro', text: 'Then the same mechanism inside a GPT that attnlab trained on the ' +
        'King James Bible: what it predicts, how it generates, and what its heads have learned to do.' }) : null,
      el('ol', { class: 'lesson-list', start: LESSONS.findIndex((l) => l.part === part.id) + 1 },
        LESSONS.filter((l) => l.part === part.id).map((l) => el('li', {}, el('a', { href: `./lessons/${l.slug}.html`, text: l.title })))),
    ])),
);
document.body.dataset.ready = 'true';
