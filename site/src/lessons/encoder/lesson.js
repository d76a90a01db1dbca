// Lesson 9: the encoder layer — attention → add & norm → FFN → add & norm — stepped through its trace,
// with the parameter count of each part.
import { blockDiagram } from './block-diagram.js';
import { el, field, select } from '../../dom.js';
import { lessonPage } from '../../page.js';
import { MAX_TOKENS, sentenceInput, tokenChips, tokensField, tokensOf } from '../../views.js';
import pytorchSource from './program.py?raw';
import { CONFIG, encoderWeights, FALLBACK, PROGRAM } from './settings.js';

lessonPage({
  slug: 'encoder',
  intro: [
    'An encoder layer wraps attention and a position-wise feed-forward network (Linear d_model→d_ff, GELU, Linear ' +
      'd_ff→d_model), each with a residual connection and a normalisation. This one is the tutorials’ example: d_model 64, ' +
      '4 heads, d_ff 256. BERT-base stacks 12 such layers and BERT-large 24 (GPT-3’s 96 layers are the causal, decoder-only variant).',
    'Post-norm (PyTorch’s default) normalises after each residual add; pre-norm normalises the input of each sub-layer ' +
      'instead. Step through every intermediate below.',
  ],
  formula: String.raw`\begin{aligned}\text{post-norm: }\; h &= \operatorname{Norm}(x + \operatorname{MHA}(x))\\ y &= \operatorname{Norm}(h + \operatorname{FFN}(h))\\ \text{pre-norm: }\; h &= x + \operatorname{MHA}(\operatorname{Norm}(x))\\ y &= h + \operatorname{FFN}(\operatorname{Norm}(h))\end{aligned}`,
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: "const layer = new lab.TransformerEncoderLayer({ dModel: 64, numHeads: 4, dFF: 256 });\nconst steps = layer.trace(x);",
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    const sentenceBox = sentenceInput(`Sentence (up to ${MAX_TOKENS} tokens)`, state.sentence, (sentence) => ctx.set({ sentence }));
    const chips = tokenChips([]);
    const stepper = document.createElement('attn-stepper');
    const counts = el('div', { class: 'table-wrap' });
    const diagram = blockDiagram((index) => {
      stepper.index = index;
      ctx.remember({ step: index });
      diagram.show(stepper.steps, index);
    });
    stepper.addEventListener('step-change', (e) => {
      ctx.remember({ step: e.detail.index });
      diagram.show(stepper.steps, e.detail.index);
    });
    root.append(
      el('div', { class: 'controls' },
        sentenceBox, tokensField(ctx),
        field('Norm', select([['layernorm', 'LayerNorm'], ['rmsnorm', 'RMSNorm']], state.norm, (norm) => ctx.set({ norm }))),
        field('Layout', select([['post', 'post-norm (PyTorch default)'], ['pre', 'pre-norm']], state.order, (order) => ctx.set({ order })))),
      chips, el('h2', { text: 'Parameters' }), counts, el('h2', { text: 'Every step' }),
      el('div', { class: 'layer-walk' }, diagram.node, stepper));
    let layer = null;
    let key = '';
    const tutorial = { dModel: 32, numHeads: 4, bias: false };  // the tutorials' MHA
    const small = new lab.MultiHeadAttention(tutorial);
    const tutorialCount = small.parameterCount();
    small.dispose();
    return () => {
      const next = `${state.norm}|${state.order}|${state.seed}`;
      if (next !== key) {
        layer?.dispose();
        layer = new lab.TransformerEncoderLayer({ ...CONFIG, norm: state.norm, normFirst: state.order === 'pre', seed: state.seed });
        // Weights the page can also write to the PyTorch program's file (the layer has no getter for its own).
        layer.loadWeights(encoderWeights(lab, state));
        key = next;
      }
      const { tokens } = tokensOf(lab, state.sentence, FALLBACK, { mode: state.tokens, ctx, field: sentenceBox });
      tokenChips(tokens, chips);
      const x = lab.embedTokens(tokens, CONFIG.dModel, { seed: state.seed, positions: 'sinusoidal' });
      const parts = layer.parameterCounts();
      const { dModel: d, dFF: f } = CONFIG;
      const rows = [
        [`Multi-head attention (4·${d}² + 4·${d})`, parts.selfAttn],
        [`Feed-forward (${d}·${f} + ${f} + ${f}·${d} + ${d})`, parts.feedForward],
        [state.norm === 'rmsnorm' ? `Two RMSNorms (2·${d})` : `Two LayerNorms (2·2·${d})`, parts.norms],
        ['Encoder layer in total', parts.total],
        [`The tutorials’ MHA(d_model ${tutorial.dModel}, ${tutorial.numHeads} heads, no bias)`, tutorialCount],
      ];
      counts.replaceChildren(el('table', { class: 'data' },
        el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'part' }), el('th', { scope: 'col', text: 'parameters' }))),
        el('tbody', {}, rows.map(([name, n]) => el('tr', {}, el('th', { scope: 'row', text: name }), el('td', { text: n.toLocaleString('en-US') }))))));
      stepper.labels = { rows: tokens, cols: tokens };
      // The attention's own "Input X" repeats the layer's input in post-norm (one step, shown once);
      // in pre-norm it is the normed X, and says so.
      stepper.steps = layer.trace(x).flatMap((step) => {
        if (step.id !== 'attn.input') return [step];
        return state.order === 'pre' ? [{ ...step, title: 'Attention’s input: the normed X' }] : [];
      });
      stepper.index = Math.min(state.step, stepper.steps.length - 1);
      diagram.show(stepper.steps, stepper.index);
    };
  },
});
