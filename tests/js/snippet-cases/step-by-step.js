// Step by step: the page's stepper shows Q, K, V (the layer's trace) and the attention's steps
// (traceAttention), on X and weights with the learner's edits; computed here with the package.
import { sentenceTokens } from '../../../site/src/sentence-tokens.js';

export const states = [
  {},
  { sentence: 'dogs chase the red ball quickly', seed: 7, mask: 'causal' },
  // Edits of X and W_q change the inputs; an edit of Q replaces one number of the projection.
  { mask: 'causal', edits: 'X.0.1=0.5;W_q.2.3=-1.25;Q.1.2=2;V.3.0=-0.75' },
];

// The edits above, written in here by hand, not parsed by the lesson's code.
const EDITS = {
  X: [[0, 1, 0.5]], W_q: [[2, 3, -1.25]], Q: [[1, 2, 2]], V: [[3, 0, -0.75]],
};
const edited = (m, name, on) => {
  if (!on || !EDITS[name]) return m;
  const data = Float32Array.from(m.data);
  for (const [r, c, value] of EDITS[name]) data[r * m.cols + c] = value;
  return { rows: m.rows, cols: m.cols, data };
};

export async function expected(lab, state) {
  const on = state.edits !== '';
  const tokens = sentenceTokens(lab, state.sentence, 'the cat sat on the mat', { maxTokens: 10 }).tokens;
  const mha = new lab.MultiHeadAttention({ dModel: 8, numHeads: 1, bias: false, seed: state.seed });
  const w = mha.weights().inProjWeight;
  const inProj = { rows: 24, cols: 8, data: Float32Array.from(w.data) };
  if (on) for (const [r, c, value] of EDITS.W_q) inProj.data[r * 8 + c] = value;
  mha.loadWeights({ inProjWeight: inProj, outProjWeight: mha.weights().outProjWeight });
  const x = edited(lab.embedTokens(tokens, 8, { seed: state.seed }), 'X', on);
  const traced = Object.fromEntries(mha.trace(x).map((s) => [s.id, s.tensors]));
  mha.dispose();
  const [q, k, v] = [edited(traced.q.Q, 'Q', on), edited(traced.k.K, 'K', on), edited(traced.v.V, 'V', on)];
  const steps = Object.fromEntries(lab.traceAttention(q, k, v, { causal: state.mask === 'causal' }).map((s) => [s.id, s.tensors]));
  return {
    Q: q.data, K: k.data, V: v.data,
    scores: steps.scores.scores.data,
    'scaled scores': steps.scaled_scores.scaled_scores.data,
    ...(steps.masked_scores ? { 'masked scores': steps.masked_scores.masked_scores.data } : {}),
    weights: steps.weights.weights.data,
    output: steps.output.output.data,
  };
}
