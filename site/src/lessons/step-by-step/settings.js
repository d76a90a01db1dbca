// The step-by-step lesson's PyTorch program (program.py), DOM-free: the lesson's settings, how the
// page makes X and W_q, W_k, W_v from them with the learner's edits, and the file the program reads.
import { sentenceTokens, TOKENS_SCHEMA } from '../../sentence-tokens.js';

export const D_MODEL = 8;
export const MAX_TOKENS = 10;
export const FALLBACK = 'the cat sat on the mat';
export const EDITABLE = { input: ['X'], projection_weights: ['W_q', 'W_k', 'W_v'], q: ['Q'], k: ['K'], v: ['V'] };
const EDITABLE_NAMES = Object.values(EDITABLE).flat();
const FLOAT32_MAX = 3.4028234663852886e38;

export const schema = {
  sentence: { type: 'text', maxLength: 200, default: FALLBACK },
  tokens: TOKENS_SCHEMA,
  seed: { type: 'int', min: 0, max: 999999, default: 1 },
  mask: { type: 'enum', values: ['none', 'causal'], default: 'none' },
  step: { type: 'int', min: 0, max: 20, default: 0 },
  // The learner's edited entries, "X.0.1=0.5;W_q.2.3=-1" (see parseEdits): a link reproduces them.
  edits: { type: 'text', maxLength: 1000, default: '' },
};

// "X.0.1=0.5;W_q.2.3=-1" → [{ name, row, col, value }], the entries in the order they were made; a
// malformed or unknown entry is dropped (and reported by the caller).
export function parseEdits(text) {
  const entries = [];
  let dropped = 0;
  for (const part of text.split(';').filter(Boolean)) {
    const match = /^([A-Za-z_]+)\.(\d+)\.(\d+)=(.+)$/.exec(part);
    const value = match ? Number(match[4]) : NaN;
    if (!match || !EDITABLE_NAMES.includes(match[1]) || !Number.isFinite(value) || Math.abs(value) > FLOAT32_MAX) dropped++;
    else entries.push({ name: match[1], row: Number(match[2]), col: Number(match[3]), value });
  }
  return { entries, dropped };
}
export const formatEdits = (entries) => entries.map((e) => `${e.name}.${e.row}.${e.col}=${e.value}`).join(';');

// The entries that fall inside their tensor for n tokens (X, Q, K, V: n × 8; W: 8 × 8); a link's entry
// outside is dropped by the lesson, so the page and the program apply the same ones.
export function editsInShape(entries, n) {
  return entries.filter((e) => e.col < D_MODEL && e.row < (e.name.startsWith('W') ? D_MODEL : n));
}

// The tensor with the learner's entries for it written in.
export function applyEdits(m, name, entries) {
  const mine = entries.filter((e) => e.name === name);
  if (!mine.length) return m;
  const data = Float32Array.from(m.data);
  for (const e of mine) data[e.row * m.cols + e.col] = e.value;
  return { rows: m.rows, cols: m.cols, data };
}

export const stepTokens = (lab, state) =>
  sentenceTokens(lab, state.sentence, FALLBACK, { mode: state.tokens, maxTokens: MAX_TOKENS }).tokens;

// The page's X and W_q, W_k, W_v with the learner's edits in: initial is the seeded layer's weights().
export function editedInputs(lab, tokens, seed, initial, edits) {
  const x = applyEdits(lab.embedTokens(tokens, D_MODEL, { seed }), 'X', edits);
  const w = ['W_q', 'W_k', 'W_v'].map((name, i) => applyEdits(
    { rows: D_MODEL, cols: D_MODEL, data: initial.inProjWeight.data.slice(i * D_MODEL * D_MODEL, (i + 1) * D_MODEL * D_MODEL) }, name, edits));
  return { x, w };
}

export const PROGRAM = {
  schema,
  settings: (state) => ({
    causal: state.mask === 'causal',
    qkvEdits: parseEdits(state.edits).entries.filter((e) => ['Q', 'K', 'V'].includes(e.name)).map((e) => [e.name, e.row, e.col, e.value]),
  }),
  file: 'attnlab-step-by-step.safetensors',
  tensors(lab, state) {
    const tokens = stepTokens(lab, state);
    const mha = new lab.MultiHeadAttention({ dModel: D_MODEL, numHeads: 1, bias: false, seed: state.seed });
    try {
      const { x, w } = editedInputs(lab, tokens, state.seed, mha.weights(), editsInShape(parseEdits(state.edits).entries, tokens.length));
      return { x, W_q: w[0], W_k: w[1], W_v: w[2] };
    } finally {
      mha.dispose();
    }
  },
};
