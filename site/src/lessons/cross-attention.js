// Lesson 6: cross-attention — queries from one sentence, keys and values from another.
import { el, shape } from '../dom.js';
import { attentionCache } from '../models.js';
import { lessonPage } from '../page.js';
import { heatmap, panel, sentenceInput, tokenChips, TOKENS_SCHEMA, tokensField, tokensOf } from '../views.js';

const D_MODEL = 16;

lessonPage({
  slug: 'cross-attention',
  intro: [
    'In cross-attention the queries come from one sequence and the keys and values from another — in translation, ' +
      'the French words being written ask the English sentence which words matter now (“chat” should look at “cat”).',
    'The weights are rectangular: one row per query word, one column per source word. The output has one row per ' +
      'query: its length follows the queries, not the source.',
  ],
  formula: String.raw`\operatorname{CrossAttention}(Y, X) = \operatorname{softmax}\Big(\frac{(YW_q)(XW_k)^\top}{\sqrt{d_k}}\Big)\,XW_v`,
  pytorch: 'out, weights = mha(query=target, key=source, value=source)',
  call: 'const { output, weights } = mha.forward(target, source, source);',
  schema: {
    source: { type: 'text', maxLength: 200, default: 'the cat sat on the mat' },
    tokens: TOKENS_SCHEMA,
    target: { type: 'text', maxLength: 200, default: 'le chat est assis' },
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
  },
  setup(ctx) {
    const { lab, state, root } = ctx;
    const sourceBox = sentenceInput('Source sentence (keys and values)', state.source, (source) => ctx.set({ source }));
    const targetBox = sentenceInput('Target sentence (queries)', state.target, (target) => ctx.set({ target }));
    const attention = attentionCache(lab);
    const sourceChips = tokenChips([]);
    const targetChips = tokenChips([]);
    const shapes = el('p', { class: 'explain shapes', 'aria-live': 'polite' });
    const map = heatmap({ rowTitle: 'Target word (query)', colTitle: 'Source word (key)', caption: 'Cross-attention weights' });
    root.append(
      el('div', { class: 'controls' },
        sourceBox, targetBox, tokensField(ctx)),
      el('p', { text: 'Source tokens:' }), sourceChips, el('p', { text: 'Target tokens:' }), targetChips, shapes,
      panel('Target attends to source', map));
    return () => {
      const source = tokensOf(lab, state.source, 'the cat sat on the mat', { mode: state.tokens, ctx, field: sourceBox }).tokens;
      const target = tokensOf(lab, state.target, 'le chat est assis', { mode: state.tokens, ctx, field: targetBox }).tokens;
      tokenChips(source, sourceChips);
      tokenChips(target, targetChips);
      const x = lab.embedTokens(source, D_MODEL, { seed: state.seed });
      const y = lab.embedTokens(target, D_MODEL, { seed: state.seed });
      const { output, weights } = attention({ dModel: D_MODEL, numHeads: 1, seed: state.seed }).forward(y, x, x);
      shapes.textContent = `queries ${shape(y)}, keys/values ${shape(x)} → weights ${shape(weights[0])} → output ${shape(output)}`;
      map.rowLabels = target;
      map.colLabels = source;
      map.matrix = weights[0];
    };
  },
});
