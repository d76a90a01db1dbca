// Lesson 5: multi-head attention — per-head heatmaps side by side, the split/combine shapes, and
// the rule that num_heads must divide d_model.
import { AttnLabError } from 'attnlab';

import { el, field, select, shape } from '../../dom.js';
import { attentionCache } from '../../models.js';
import { lessonPage } from '../../page.js';
import { trainedHeadsSection } from './trained-heads-section.js';
import { heatmap, MAX_TOKENS, panel, sentenceInput, tokenChips, tokensField, tokensOf } from '../../views.js';
import pytorchSource from './program.py?raw';
import { D_MODELS, HEADS, PROGRAM } from './settings.js';
import { FALLBACK } from '../../../snippets/sentence-layer.js';

lessonPage({
  slug: 'multi-head',
  intro: [
    'Multi-head attention runs several attentions side by side. d_model is split into num_heads subspaces of ' +
      'd_k = d_model / num_heads columns each: split_heads reshapes (seq, d_model) to (seq, heads, d_k) and ' +
      'transposes that to (heads, seq, d_k), every head attends on its own, and combine_heads puts the results back side by side before the output projection W_o.',
    'Each head can learn a different pattern: random heads cannot show that, so under them the same sentence runs ' +
      'through a trained model. Try a d_model that num_heads does not divide to see why it must divide it.',
  ],
  formula: String.raw`\begin{aligned}&\operatorname{MultiHead}(X)\\ &\quad= \operatorname{Concat}(\text{head}_1,\dots,\text{head}_h)\,W_o^\top\\ &\text{head}_i = \operatorname{Attention}(Q_i, K_i, V_i)\\ &(Q_i, K_i, V_i) = (XW_q^{(i)\top}, XW_k^{(i)\top}, XW_v^{(i)\top})\end{aligned}`,
  // The snippets quote the page's settings.
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: (state) => `const mha = new lab.MultiHeadAttention({ dModel: ${state.dModel}, numHeads: ${state.heads}, seed: ${state.seed} });\n` +
    `const { output, weights, averageWeights } = mha.forward(x, x, x, { causal: ${state.mask === 'causal'} });`,
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    const sentenceBox = sentenceInput(`Sentence (up to ${MAX_TOKENS} tokens)`, state.sentence, (sentence) => ctx.set({ sentence }));
    const attention = attentionCache(lab);
    const chips = tokenChips([]);
    const shapes = el('div', { class: 'explain shapes', 'aria-live': 'polite' });
    const heads = el('div', { class: 'grid' });
    const average = heatmap({ caption: 'Average over heads (PyTorch’s default return)', rowTitle: 'Query', colTitle: 'Key' });
    average.setAttribute('link', 'heads');
    let headMaps = [];
    const trained = trainedHeadsSection(ctx);
    root.append(
      el('div', { class: 'controls' },
        sentenceBox, tokensField(ctx),
        field('d_model', select(D_MODELS.map((d) => [d, String(d)]), state.dModel, (d) => ctx.set({ dModel: Number(d) }))),
        field('num_heads', select(HEADS.map((h) => [h, String(h)]), state.heads, (h) => ctx.set({ heads: Number(h) }))),
        field('Mask', select([['none', 'none'], ['causal', 'causal']], state.mask, (mask) => ctx.set({ mask })))),
      chips, shapes, heads, el('h2', { text: 'Per-head vs averaged' }), panel(null, average), trained.node);
    return () => {
      const { tokens } = tokensOf(lab, state.sentence, FALLBACK, { mode: state.tokens, ctx, field: sentenceBox });
      tokenChips(tokens, chips);
      let mha;
      try {
        mha = attention({ dModel: state.dModel, numHeads: state.heads, seed: state.seed });
      } catch (error) {
        // One message, the package's with the reason spelled out; page.js hides the stale figures.
        heads.replaceChildren();
        headMaps = [];
        if (!(error instanceof AttnLabError)) throw error;
        // The learner's words, not the package's (which names the C++ argument): what is wrong, what to pick.
        const fits = HEADS.filter((h) => state.dModel % h === 0);
        throw new AttnLabError(`d_model = ${state.dModel} cannot be split into ${state.heads} equal heads: ` +
          `${state.dModel} / ${state.heads} = ${Number((state.dModel / state.heads).toFixed(2))} is not a whole number. ` +
          `Pick a num_heads that divides ${state.dModel}: ${fits.slice(0, -1).join(', ')} or ${fits.at(-1)}.`);
      }
      const x = lab.embedTokens(tokens, state.dModel, { seed: state.seed });
      const { output, weights, averageWeights } = mha.forward(x, x, x, { causal: state.mask === 'causal' });
      const n = tokens.length;
      const dK = state.dModel / state.heads;
      shapes.textContent = `X: ${shape(x)} → Q, K, V: ${n}×${state.dModel} → split_heads: ${state.heads} heads × ${n}×${dK} ` +
        `(d_k = ${state.dModel}/${state.heads} = ${dK}) → attention per head → combine_heads: ${n}×${state.dModel} → W_o → ${shape(output)}`;
      if (headMaps.length !== state.heads) {
        // One shared hover (the `link` attribute): a query row pointed at in one head is outlined in all.
        headMaps = Array.from({ length: state.heads }, (_, h) => {
          const map = heatmap({ caption: `Head ${h}`, rowTitle: 'Query', colTitle: 'Key' });
          map.setAttribute('link', 'heads');
          return map;
        });
        heads.replaceChildren(...headMaps.map((m) => panel(null, m)));
      }
      // Every head on the site's one weight scale ([0, 1]): the same colour means the same weight side by side.
      headMaps.forEach((m, h) => Object.assign(m, { rowLabels: tokens, colLabels: tokens, matrix: weights[h] }));
      Object.assign(average, { rowLabels: tokens, colLabels: tokens, matrix: averageWeights });
      trained.update();
    };
  },
});
