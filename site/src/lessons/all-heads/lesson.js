// Trained model, lesson 4: every head at once. The prompt's attention for all layers × heads in the
// package's <attn-model-view> (small multiples on the one weight scale, a hover linked across heads;
// choosing one enlarges it with the tokens on its axes), and the chosen layer's heads as lines from
// token to token in <attn-head-view>.
import { el } from '../../dom.js';
import { describeHead, headInModel } from '../../gpt-heads.js';
import { keyValueHeadOf, lessonModelAnyFamily, modelLine, modelShape, promptIds, tokenLabel } from '../../gpt-model.js';
import { lessonPage } from '../../page.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { panel, sentenceInput } from '../../views.js';

// A model whose query heads share key/value heads (a Llama's grouped-query attention): which one this head
// reads, and which heads read it too. Empty for a GPT, whose every head has its own.
function sharedKeys(shape, head) {
  if (shape.numKeyValueHeads === shape.numHeads) return '';
  const kv = keyValueHeadOf(shape, head);
  const group = shape.numHeads / shape.numKeyValueHeads;
  const others = Array.from({ length: group }, (_, i) => kv * group + i).filter((h) => h !== head);
  return ` Its keys and values come from key/value head ${kv} of ${shape.numKeyValueHeads}, which ` +
    (others.length ? `head${others.length > 1 ? 's' : ''} ${others.join(', ')} read${others.length > 1 ? '' : 's'} too: ` +
      'the same keys, scored by each head’s own queries, so the patterns differ.' : 'no other head reads.');
}

const DEFAULT_PROMPT = 'And God said, Let there be light: and there was light. And God saw the light, that it was good.';

lessonPage({
  slug: 'all-heads',
  intro: [
    'Each layer of the model has several heads, and every head computes its own attention over the prompt. ' +
      'Here are all of them at once: one small heatmap per layer (rows) and head (columns), each row of a ' +
      'heatmap one query token, on one shared colour scale from 0 to 1.',
    'Heads look different at a glance: some put nearly all weight on the token just before (a bright ' +
      'line under the diagonal), some on the first token (a bright first column: the “attention sink”, a place ' +
      'to put weight when there is nothing useful to look at), some spread out. Choose a head to enlarge it.',
  ],
  formula: String.raw`A^{(\ell, h)} = \operatorname{softmax}\!\Big(\frac{Q^{(\ell,h)} K^{(\ell,h)\top}}{\sqrt{d_k}} + M_{\text{causal}}\Big)`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: 'const { attention } = model.forward(ids, { attention: true, logits: \'none\' });\nattention[layer][head]  // Matrix n×n',
  schema: {
    prompt: { type: 'text', maxLength: 300, default: DEFAULT_PROMPT },
    layer: { type: 'int', min: 0, max: 47, default: 0 },
    head: { type: 'int', min: 0, max: 63, default: 0 },
  },
  prepare: lessonModelAnyFamily,  // a kept Llama-family model too: its query heads, each with the key/value head it reads
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const views = el('attn-model-view', { caption: 'Every layer’s and head’s attention (choose a head to enlarge it; with a mouse, point at a row to mark the same query in every head)' });
    views.addEventListener('head-select', (event) => ctx.set({ layer: event.detail.layer, head: event.detail.head }));
    const lines = el('attn-head-view');
    lines.addEventListener('head-select', (event) => ctx.set({ head: event.detail.head }));
    const about = el('p', { class: 'explain', 'aria-live': 'polite' });
    const promptBox = sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt }), 300, { key: 'prompt', lines: 3 });
    root.append(modelLine(prepared),
      el('div', { class: 'controls' }, promptBox),
      panel(null, views), about,
      el('h2', { text: 'The chosen layer’s heads, token to token' }), panel(null, lines));

    let cached = { prompt: null };
    return () => {
      if (cached.prompt !== state.prompt) {
        const { ids } = promptIds(tokenizer, model, state.prompt, DEFAULT_PROMPT, { box: promptBox });
        cached = { prompt: state.prompt, ids, ...model.forward(ids, { attention: true, logits: 'none' }) };
        cached.labels = Array.from(ids, (id) => tokenLabel(tokenizer, id));
        Object.assign(views, { attention: cached.attention, tokens: cached.labels });
      }
      const shape = modelShape(model);
      const { layer, head } = headInModel(ctx, shape, state.layer, state.head);
      views.selected = { layer, head };
      Object.assign(lines, { attention: cached.attention[layer], tokens: cached.labels,
        caption: `Layer ${layer}: each token’s attention as lines (opacity = weight); point at or tap a token, or pick a head` });
      lines.setAttribute('head', String(head));
      about.textContent = `Layer ${layer}, head ${head}. ${describeHead(cached.attention[layer][head])}${sharedKeys(shape, head)}`;
    };
  },
});
