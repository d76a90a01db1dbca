// The positions lesson's PyTorch program (program.py), DOM-free: the lesson's settings, the file the
// program reads (the permutation demo's X without positions and the page's layer; the four encodings'
// seeded parts) and the four encodings' chart, which the page draws and the test checks the program against.
import { multiheadStateDict } from '../../safetensors-file.js';
import { sentenceTokens, TOKENS_SCHEMA } from '../../sentence-tokens.js';

export const D_MODEL = 16;  // the permutation demo's width, and the four encodings' chart's
export const FALLBACK = 'the cat sat';
export const DIMS = [8, 16, 32, 64, 128];
export const DISTANCES = 32;  // the four encodings' chart: positions 0 … 31

// The four encodings' chart: the score between position 0 and position k, for k = 0 … DISTANCES−1,
// computed by the core as q·k with a scale that makes identical positions score 1 where the scheme has a
// fixed norm. The learned table and RoPE's content vector come from the seeded generator, so the
// program reads them from the page's file (tensors below); → [{ name, points: [[k, score]] }].
export function positionFalloff(lab, d, seed) {
  const row0 = (m) => ({ rows: 1, cols: m.cols, data: m.data.slice(0, m.cols) });
  const against0 = (m, scale) => Array.from(lab.scaledDotProductAttention(row0(m), m, m, { scale }).scaledScores.data);
  const sinusoidal = lab.positionalEncoding(DISTANCES, d);                      // |PE_p|² = d/2
  const learned = lab.positionalEncoding(DISTANCES, d, 'learned', { seed });    // N(0,1) rows: |row|² ≈ d
  // RoPE on one seeded random vector at every position: the score then depends only on the distance,
  // with a shape of its own (an all-ones vector would land exactly on the sinusoidal curve and hide it).
  const content = ropeContent(lab, d, seed);
  const norm2 = content.data.reduce((sum, v) => sum + v * v, 0);
  const rope = lab.applyRotary(lab.matrix(DISTANCES, d, Array.from({ length: DISTANCES }, () => Array.from(content.data)).flat()));
  const slope = lab.alibiSlopes(8)[4];
  const alibi = Array.from(lab.alibiBias(DISTANCES, DISTANCES, slope).data.slice(0, DISTANCES));
  const points = (values) => values.map((v, k) => [k, v]);
  return [
    { name: 'sinusoidal (added to X)', points: points(against0(sinusoidal, 2 / d)) },
    { name: 'learned table (random init)', points: points(against0(learned, 1 / d)) },
    { name: 'RoPE (rotates q and k)', points: points(against0(rope, 1 / norm2)) },
    { name: `ALiBi bias (slope 1/${Math.round(1 / slope)})`, points: points(alibi) },
  ];
}
const ropeContent = (lab, d, seed) => lab.randn(1, d, seed + 7);

export const PROGRAM = {
  schema: {
    positions: { type: 'int', min: 2, max: 100, default: 50 },
    dims: { type: 'enum', values: DIMS, default: 128 },
    sentence: { type: 'text', maxLength: 200, default: FALLBACK },
    tokens: TOKENS_SCHEMA,
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
  },
  settings: (state) => ({ positions: state.positions, dims: state.dims }),
  file: 'attnlab-positions.safetensors',
  tensors(lab, state) {
    const tokens = sentenceTokens(lab, state.sentence, FALLBACK, { mode: state.tokens, maxTokens: 32 }).tokens;
    const mha = new lab.MultiHeadAttention({ dModel: D_MODEL, numHeads: 1, seed: state.seed });
    try {
      return { x: lab.embedTokens(tokens, D_MODEL, { seed: state.seed }), ...multiheadStateDict(mha.weights()),
        // The four encodings' chart: the seeded learned table and the vector RoPE rotates.
        learned: lab.positionalEncoding(DISTANCES, D_MODEL, 'learned', { seed: state.seed }), rope_content: ropeContent(lab, D_MODEL, state.seed) };
    } finally {
      mha.dispose();
    }
  },
};
