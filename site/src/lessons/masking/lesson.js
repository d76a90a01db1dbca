// Lesson 7: no mask, a causal mask and a padding mask on the same input, the mask beside the weights.
import { el, field, isolated, select } from '../../dom.js';
import { attentionCache } from '../../models.js';
import { lessonPage } from '../../page.js';
import { heatmap, panel, sentenceInput, tokenChips, tokensField, tokensOf } from '../../views.js';
import pytorchSource from './program.py?raw';
import { D_MODEL, MASKS, PROGRAM } from './settings.js';
import { FALLBACK } from '../../../snippets/sentence-layer.js';

lessonPage({
  slug: 'masking',
  intro: [
    'A mask says which keys each query may see: 1 = may attend, 0 = blocked. Blocked scores become −∞ before the ' +
      'softmax, so their weight is exactly 0 and the rest of the row still sums to 1.',
    'A causal mask (torch.tril) lets position i see only positions 0…i, as when generating text left to right: every ' +
      'value above the diagonal is exactly 0.0. A padding mask hides the filler tokens at the end of a short sequence in a batch.',
  ],
  formula: String.raw`\begin{gathered}\operatorname{softmax}\Big(\frac{QK^\top}{\sqrt{d_k}} + M\Big)\\ M_{ij} = \begin{cases}0 & \text{mask}_{ij}=1\\ -\infty & \text{mask}_{ij}=0\end{cases}\end{gathered}`,
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: 'const mask = lab.causalMask(n);            // or lab.keyPaddingMask(n, n, valid)\nconst { weights } = mha.forward(x, x, x, { mask });',
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    const sentenceBox = sentenceInput('Sentence', state.sentence, (sentence) => ctx.set({ sentence }));
    const attention = attentionCache(lab);
    const chips = tokenChips([]);
    const check = el('p', { class: 'explain', 'aria-live': 'polite' });
    const maskMap = heatmap({ caption: 'Mask (1 = may attend)', rowTitle: 'Query', colTitle: 'Key', decimals: 0 });  // 0 and 1, not 0.00
    const weightsMap = heatmap({ caption: 'Attention weights', rowTitle: 'Query', colTitle: 'Key' });
    // What the learner typed is used as it is when it can be; otherwise the page says, beside the box,
    // what it used instead and why.
    const validNote = el('span', { class: 'field-hint notice-inline', 'aria-live': 'polite' });
    let typedNote = '';
    const valid = el('input', { type: 'number', min: 0, max: 32, value: state.valid,
      on: { change: (e) => {
        const raw = e.target.value.trim();
        const number = Number(raw);
        const used = raw === '' || !Number.isFinite(number) ? state.valid : Math.max(0, Math.min(32, Math.trunc(number)));
        typedNote = raw === '' ? `The box was empty: still ${used}.`
          : String(used) !== raw ? `“${raw}” is not a whole number from 0 to 32: using ${used}.` : '';
        e.target.value = String(used);
        ctx.set({ valid: used });
      } } });
    root.append(
      el('div', { class: 'controls' },
        sentenceBox, tokensField(ctx),
        field('Mask', select(Object.entries(MASKS), state.mask, (mask) => ctx.set({ mask }))),
        field('Real tokens (padding mask)', valid, 'keys after this many are padding'), validNote),
      chips, check, el('div', { class: 'grid' }, panel('Mask', maskMap), panel('Weights', weightsMap)));
    return () => {
      const { tokens } = tokensOf(lab, state.sentence, FALLBACK, { mode: state.tokens, ctx, field: sentenceBox });
      const n = tokens.length;
      tokenChips(tokens, chips);
      const x = lab.embedTokens(tokens, D_MODEL, { seed: state.seed });
      const validLength = Math.min(state.valid, n);
      validNote.textContent = state.mask !== 'padding' ? '' : typedNote ||
        (state.valid > n ? `The sentence has ${n} token${n === 1 ? '' : 's'}, so all ${n} are real (you asked for ${state.valid}).` : '');
      typedNote = '';
      valid.disabled = state.mask !== 'padding';
      const mask = state.mask === 'causal' ? lab.causalMask(n)
        : state.mask === 'padding' ? lab.keyPaddingMask(n, n, validLength) : lab.matrix(n, n, new Float32Array(n * n).fill(1));
      const { weights } = attention({ dModel: D_MODEL, numHeads: 1, seed: state.seed }).forward(x, x, x, { mask });
      for (const map of [maskMap, weightsMap]) {
        map.rowLabels = tokens;
        map.colLabels = tokens;
      }
      maskMap.matrix = mask;
      weightsMap.matrix = weights[0];
      if (state.mask === 'causal') {
        let above = 0;
        for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (weights[0].data[i * n + j] !== 0) above++;
        check.textContent = above === 0 ? 'Every weight above the diagonal is exactly 0.0: no word sees the future.'
          : `${above} weights above the diagonal are not 0.`;
      } else if (state.mask === 'padding') {
        check.textContent = validLength >= n ? `All ${n} keys are real tokens: nothing is padding.`
          : validLength === 0 ? 'Every key is padding: no query has anything to attend to, so attnlab makes every weight exactly 0.0 and the ' +
            'output 0 (its rule for a row with no key), and the attention adds only the output projection’s bias. PyTorch ' +
            'gives NaN there instead: masked_fill with −∞ and then softmax (as nn.MultiheadAttention does) computes 0/0 in every weight.'
            : `Keys ${validLength}…${n - 1} (${tokens.slice(validLength).map(isolated).join(', ')}) are padding: their columns are exactly 0.0 in every row.`;
      } else {
        check.textContent = 'No mask: every word may attend to every word, the future included.';
      }
      // The all-padding sentence names PyTorch's NaN on purpose (tests/e2e/strict-page.js reads this mark).
      check.toggleAttribute('data-mentions-nan', state.mask === 'padding' && validLength === 0);
    };
  },
});
