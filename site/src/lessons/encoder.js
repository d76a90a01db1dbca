// Lesson 9: the encoder layer — attention → add & norm → FFN → add & norm — stepped through its trace,
// with the parameter count of each part.
import { el, field, select } from '../dom.js';
import { lessonPage } from '../page.js';
import { sentenceInput, tokenChips, tokensOf } from '../views.js';

const CONFIG = { dModel: 64, numHeads: 4, dFF: 256 };

lessonPage({
  slug: 'encoder',
  intro: [
    'An encoder layer wraps attention and a position-wise feed-forward network (Linear d_model→d_ff, GELU, Linear ' +
      'd_ff→d_model), each with a residual connection and a normalisation. This one is the tutorials’ example: d_model 64, ' +
      '4 heads, d_ff 256. Stack 12 of them for BERT-base, 24 for BERT-large, 96 for GPT-3.',
    'Post-norm (PyTorch’s default) normalises after each residual add; pre-norm normalises the input of each sub-layer ' +
      'instead. Step through every intermediate below.',
  ],
  formula: String.raw`h = \operatorname{Norm}(x + \operatorname{MHA}(x)),\qquad y = \operatorname{Norm}\big(h + W_2\,\operatorname{GELU}(W_1 h + b_1) + b_2\big)`,
  pytorch: 'layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=256,\n                                   activation="gelu", batch_first=True)\ny = layer(x)',
  call: "const layer = new lab.TransformerEncoderLayer({ dModel: 64, numHeads: 4, dFF: 256 });\nconst steps = layer.trace(x);",
  schema: {
    sentence: { type: 'text', maxLength: 200, default: 'the cat sat on the mat' },
    norm: { type: 'enum', values: ['layernorm', 'rmsnorm'], default: 'layernorm' },
    order: { type: 'enum', values: ['post', 'pre'], default: 'post' },
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
    step: { type: 'int', min: 0, max: 200, default: 0 },
  },
  setup(ctx) {
    const { lab, state, root } = ctx;
    const chips = tokenChips([]);
    const stepper = document.createElement('attn-stepper');
    const counts = el('div', { class: 'table-wrap' });
    stepper.addEventListener('step-change', (e) => ctx.remember({ step: e.detail.index }));
    root.append(
      el('div', { class: 'controls' },
        sentenceInput('Sentence (up to 32 tokens)', state.sentence, (sentence) => ctx.set({ sentence })),
        field('Norm', select([['layernorm', 'LayerNorm'], ['rmsnorm', 'RMSNorm']], state.norm, (norm) => ctx.set({ norm }))),
        field('Layout', select([['post', 'post-norm (PyTorch default)'], ['pre', 'pre-norm']], state.order, (order) => ctx.set({ order })))),
      chips, el('h2', { text: 'Parameters' }), counts, el('h2', { text: 'Every step' }), stepper);
    let layer = null;
    let key = '';
    return () => {
      const next = `${state.norm}|${state.order}|${state.seed}`;
      if (next !== key) {
        layer?.dispose();
        layer = new lab.TransformerEncoderLayer({ ...CONFIG, norm: state.norm, normFirst: state.order === 'pre', seed: state.seed });
        key = next;
      }
      const { tokens } = tokensOf(lab, state.sentence, 'the cat sat on the mat');
      tokenChips(tokens, chips);
      const x = lab.embedTokens(tokens, CONFIG.dModel, { seed: state.seed, positions: 'sinusoidal' });
      const parts = layer.parameterCounts();
      const small = new lab.MultiHeadAttention({ dModel: 32, numHeads: 4, bias: false });
      const tutorial = small.parameterCount();
      small.dispose();
      const rows = [
        ['Multi-head attention (4·64² + 4·64)', parts.selfAttn],
        ['Feed-forward (64·256 + 256 + 256·64 + 64)', parts.feedForward],
        [state.norm === 'rmsnorm' ? 'Two RMSNorms (2·64)' : 'Two LayerNorms (2·2·64)', parts.norms],
        ['Encoder layer in total', parts.total],
        ['The tutorials’ MHA(d_model 32, 4 heads, no bias)', tutorial],
      ];
      counts.replaceChildren(el('table', { class: 'data' },
        el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'part' }), el('th', { scope: 'col', text: 'parameters' }))),
        el('tbody', {}, rows.map(([name, n]) => el('tr', {}, el('th', { scope: 'row', text: name }), el('td', { text: n.toLocaleString('en-US') }))))));
      stepper.labels = { rows: tokens, cols: tokens };
      stepper.steps = layer.trace(x);
      stepper.index = Math.min(state.step, stepper.steps.length - 1);
    };
  },
});
