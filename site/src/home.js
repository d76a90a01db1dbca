// The home page, the start of the course: what the learner will be able to do, the path through the
// four parts (each with a figure computed live by attnlab), the trained model as the destination, the
// lessons opened so far (kept in this browser only) and one clear first click. It loads no wasm and
// no KaTeX itself: the figures' code (home-previews.js) is fetched when a figure scrolls into view,
// and the first lesson's script is fetched ahead in idle time, so the first click is quick.
import '../styles.css';

import { el } from './dom.js';
import { siteHeader } from './header.js';
import { offerIsolation } from './isolation.js';
import { LESSONS, PARTS } from './lessons.js';
import { forgetProgress, nextLesson, openedLessons } from './progress.js';

const SKILLS = [
  'compute softmax(QKᵀ/√d_k)·V by hand on a small sentence, and check every number against attnlab and PyTorch;',
  'say why the scores are divided by √d_k, what a causal or padding mask does, and how positions get in;',
  'follow a multi-head encoder layer shape by shape, and watch a small transformer learn a task;',
  'read a trained GPT’s next-token probabilities, and what temperature, top-k and top-p do to them;',
  'explain the KV cache, and find heads with jobs — previous-token, induction — then knock them out and measure what breaks;',
  'run the experiments of interpretability papers on that model — the logit lens, direct logit attribution, activation and path patching, the induction circuit — watch induction heads form in a model trained in the tab, and check them in PyTorch.',
];

const PART_TEXT = {
  mechanism: 'The mechanism, on numbers you can edit: every matrix of attention computed live, step by step, from a ' +
    'sentence you type. Ends with exercises that check your answers against the library.',
  trained: 'The same mechanism inside a GPT that attnlab trained on the King James Bible. What it ' +
    'predicts, how it generates, what each of its heads learned to do, and what breaks when you switch one off.',
  why: 'The experiments interpretability researchers run in Python, run here on the ' +
    'same trained model and your own prompts. Which layer first favours the answer, which heads wrote it, and how two ' +
    'heads compose into a circuit that copies.',
  modern: 'What the models you use today do differently, measured on attnlab’s own small Llama beside the GPT: query heads ' +
    'that share keys and values, and the cache memory that saves; positions that rotate; windows and attention sinks; and ' +
    'attention computed a block at a time.',
};

const PREVIEW_CAPTION = {
  mechanism: 'Live: self-attention weights of “the cat sat on the mat” (each row: where one word looks).',
  trained: 'Live: what attnlab’s trained model expects after “Thou shalt love thy neighbour as”.',
  why: 'Live: the logit lens on the same prompt — how likely “ thyself” looks at each point of the residual stream.',
  modern: 'Live: attnlab’s small Llama on the same prompt — the query heads of its first layer, each framed in the colour of the key/value head it shares.',
};

const lessonUrl = (slug) => `./lessons/${slug}.html`;

function render() {
  const opened = openedLessons();
  const next = nextLesson(opened);
  const first = LESSONS[0];
  const start = opened.size === 0 || !next
    ? el('a', { class: 'start', href: lessonUrl(first.slug), text: `Start with lesson 1: ${first.title} →` })
    : el('a', { class: 'start', href: lessonUrl(next.slug), text: `Continue with lesson ${LESSONS.indexOf(next) + 1}: ${next.title} →` });
  const progress = opened.size
    ? el('p', { class: 'progress' }, `You have opened ${opened.size} of ${LESSONS.length} lessons (kept in this browser only). `,
      el('button', { type: 'button', text: 'Forget my progress', on: { click: () => { forgetProgress(); render(); } } }))
    : el('p', { class: 'progress', text: `${LESSONS.length} lessons, in order. Your progress is kept in this browser only.` });

  const parts = PARTS.map((part, i) => {
    const lessons = LESSONS.filter((l) => l.part === part.id);
    const preview = el('div', { class: 'preview', 'data-part': part.id },
      el('p', { class: 'preview-caption', text: PREVIEW_CAPTION[part.id] }),
      el('div', { class: 'preview-figure', 'aria-live': 'polite' }, el('p', { class: 'field-hint', text: 'Computed when it scrolls into view…' })));
    return el('section', { class: `part part-${part.id}`, 'aria-labelledby': `part-${part.id}` },
      el('h2', { id: `part-${part.id}`, text: `Part ${i + 1}: ${part.title}` }),
      el('p', { class: 'intro', text: PART_TEXT[part.id] }),
      el('div', { class: 'part-body' },
        el('ol', { class: 'lesson-list', start: LESSONS.indexOf(lessons[0]) + 1 }, lessons.map((l) => {
          const done = opened.has(l.slug);
          return el('li', { class: done ? 'opened' : '' }, el('a', { href: lessonUrl(l.slug), text: l.title }),
            done ? el('span', { class: 'tick', text: ' ✓ opened' }) : null);
        })),
        preview));
  });

  document.body.replaceChildren(
    siteHeader(null),
    el('main', { id: 'main', class: 'home' },
      el('h1', { text: 'Attention, with numbers you can poke' }),
      el('p', { class: 'intro', text: 'You have met softmax(QKᵀ/√d_k)V, split_heads and torch.tril as code. Here every ' +
        'matrix is computed live in your browser by attnlab — a C++ library compiled to WebAssembly, whose tests check it ' +
        'against PyTorch on the same inputs: attention’s weights and outputs to within 1e-5, a trained GPT’s logits to within 1e-4 ' +
        '— and you can step through it, edit any number and watch what changes. The site is static and brings everything it ' +
        'needs (no other server, no CDN), but each page and its model download the first time you open them: there ' +
        'is no offline copy. On every page layers, heads, positions and sentences are counted from 0, as the code counts them.' }),
      start, progress,
      el('h2', { text: 'By the end you will be able to' }),
      el('ul', { class: 'skills' }, SKILLS.map((s) => el('li', { text: s }))),
      ...parts),
    // For a reader who wants the library itself: the npm package's reference, generated by TypeDoc from
    // its declaration files, and the C++ library's, by Doxygen from its headers, into the built site
    // (scripts/build-site.sh).
    el('footer', { class: 'site-footer' }, 'Use attnlab in your own page or program: ',
      el('a', { href: './api/', text: 'the npm package’s API reference' }), ', or from C++: ',
      el('a', { href: './api/cpp/', text: 'the C++ library’s' }), '.'));
  watchPreviews();
}

// Each part's figure is computed the first time it is on screen (the code and wasm it needs load then).
function watchPreviews() {
  const draw = (node) => import('./home-previews.js').then(({ drawPreview }) => drawPreview(node.dataset.part, node.querySelector('.preview-figure')));
  const nodes = [...document.querySelectorAll('.preview')];
  if (!('IntersectionObserver' in window)) { nodes.forEach(draw); return; }
  const seen = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      seen.unobserve(entry.target);
      draw(entry.target);
    }
  }, { rootMargin: '200px' });
  nodes.forEach((n) => seen.observe(n));
}

render();
document.body.dataset.ready = 'true';
performance.mark('interactive');  // bench/site-load.mjs reads it
offerIsolation();
// The first click is most likely lesson 1 (or the next lesson): fetch its page ahead while idle.
const ahead = nextLesson() ?? LESSONS[0];
(window.requestIdleCallback ?? setTimeout)(() => document.head.append(el('link', { rel: 'prefetch', href: lessonUrl(ahead.slug) })));
