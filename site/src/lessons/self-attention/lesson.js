// Lesson 4: self-attention on the learner's own sentence, with token labels on the heatmap.
import { el, formatNumber } from '../../dom.js';
import { attentionCache } from '../../models.js';
import { lessonPage } from '../../page.js';
import { heatmap, MAX_TOKENS, panel, seedField, sentenceInput, tokenChips, tokensField, tokensOf } from '../../views.js';
import pytorchSource from './program.py?raw';
import { FALLBACK } from '../../../snippets/sentence-layer.js';
import { D_MODEL, PROGRAM } from './settings.js';

lessonPage({
  slug: 'self-attention',
  intro: [
    'In self-attention the queries, keys and values all come from the same sentence: every word asks every word ' +
      '(itself included) how relevant it is. Type your own sentence; each word becomes a row of X.',
    'The weights here come from randomly initialised projections, so the pattern means nothing yet — training is what ' +
      'makes “it” look at “animal”. What you can see is the mechanism: every row is a probability distribution over the words.',
  ],
  formula: String.raw`\begin{aligned}&\operatorname{SelfAttention}(X)\\ &\quad= \operatorname{softmax}\Big(\frac{(XW_q^\top)(XW_k^\top)^\top}{\sqrt{d_k}}\Big)\,XW_v^\top\end{aligned}`,
  // The snippets quote the page's settings: the same sizes, the seed of the page's weights (the PyTorch
  // program reads them from the file the page writes).
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: (state) => `const x = lab.embedTokens(tokens, 16, { seed: ${state.seed} });\n` +
    `const attn = new lab.MultiHeadAttention({ dModel: 16, numHeads: 1, seed: ${state.seed} });\nconst { output, weights } = attn.forward(x);`,
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    const sentenceBox = sentenceInput(`Your sentence (up to ${MAX_TOKENS} tokens)`, state.sentence, (sentence) => ctx.set({ sentence }));
    const attention = attentionCache(lab);
    const chips = tokenChips([]);
    const map = heatmap({ rowTitle: 'Query word', colTitle: 'Attending to (key)', caption: 'Attention weights' });
    const whoTable = el('div', { class: 'table-wrap' });
    root.append(
      el('div', { class: 'controls' },
        sentenceBox, tokensField(ctx),
        seedField(state.seed, (seed) => ctx.set({ seed }))),
      chips, el('div', { class: 'grid' }, panel('Who attends to whom', map), panel('Most attended word per row', whoTable)));
    return () => {
      const { tokens } = tokensOf(lab, state.sentence, FALLBACK, { mode: state.tokens, ctx, field: sentenceBox });
      tokenChips(tokens, chips);
      const x = lab.embedTokens(tokens, D_MODEL, { seed: state.seed });
      const { weights } = attention({ dModel: D_MODEL, numHeads: 1, seed: state.seed }).forward(x);
      map.rowLabels = tokens;
      map.colLabels = tokens;
      map.matrix = weights[0];
      const rows = tokens.map((t, i) => {
        const row = weights[0].data.slice(i * tokens.length, (i + 1) * tokens.length);
        const best = row.indexOf(Math.max(...row));
        return el('tr', {}, el('th', { scope: 'row', text: t }), el('td', { text: tokens[best] }), el('td', { text: formatNumber(row[best]) }));
      });
      whoTable.replaceChildren(el('table', { class: 'data' },
        el('thead', {}, el('tr', {}, ['query', 'attends most to', 'weight'].map((h) => el('th', { scope: 'col', text: h })))),
        el('tbody', {}, rows)));
    };
  },
});
