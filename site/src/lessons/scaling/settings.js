// The scaling lesson's PyTorch program (program.py), DOM-free: the lesson's settings, its random draws
// (one query against 5 keys, 200 times), and the file of draws the program reads.
export const DKS = [4, 16, 64, 256, 1024];
export const KEYS = 5;
export const DRAWS = 200;  // independent (query, keys) draws averaged in the table and the chart
export const SCALES = { sqrt: '1/√d_k (standard)', none: 'none (scale 1)', custom: 'custom' };

export const schema = {
  dk: { type: 'enum', values: DKS, default: 64 },
  scale: { type: 'enum', values: Object.keys(SCALES), default: 'sqrt' },
  custom: { type: 'int', min: 1, max: 100, default: 10 },
  seed: { type: 'int', min: 0, max: 999999, default: 0 },
};

// Draw number d of the lesson's experiment (d = 0 is "this draw"): a query (1 × d_k) and 5 keys and
// values (5 × d_k) with N(0, 1) entries, from the seeds seed + 3d, seed + 3d + 1 and seed + 3d + 2.
export function draw(lab, dK, seed, d = 0) {
  const s = seed + 3 * d;
  return { q: lab.randn(1, dK, s), k: lab.randn(KEYS, dK, s + 1), v: lab.randn(KEYS, dK, s + 2) };
}

// The scale the page passes to scaledDotProductAttention: undefined is the package's default 1/√d_k.
export const chosenScale = (state) => (state.scale === 'none' ? 1 : state.scale === 'custom' ? 1 / state.custom : undefined);

export const PROGRAM = {
  schema,
  settings: (state) => ({ scale: state.scale, custom: state.custom }),
  file: 'attnlab-scaling.safetensors',
  // Every draw's query and keys at the page's d_k: q (200, 1, d_k), k (200, 5, d_k).
  tensors(lab, state) {
    const draws = Array.from({ length: DRAWS }, (_, d) => draw(lab, state.dk, state.seed, d));
    const stack = (name, rows) => ({ shape: [DRAWS, rows, state.dk], data: Float32Array.from(draws.flatMap((x) => Array.from(x[name].data))) });
    return { q: stack('q', 1), k: stack('k', KEYS) };
  },
};
