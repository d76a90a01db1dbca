// The components test page: known matrices in two heatmaps, a positional encoding from the package,
// and a real multi-head attention trace in the stepper. What the test needs is on document.body.dataset
// (result: the data given to the components) and window.seen (the events they dispatched).
import '/web/dist/components.js';
import { init } from '/web/index.js';

const XSS = '<img src=x onerror=alert(1)>';
window.seen = { cellFocus: [], stepChange: [] };
document.addEventListener('cell-focus', (event) => window.seen.cellFocus.push({ id: event.target.id, ...event.detail }));
document.addEventListener('step-change', (event) => window.seen.stepChange.push({ index: event.detail.index, id: event.detail.step.id }));

try {
  // 4×5 attention scores with two masked (−∞) entries.
  const weights = {
    rows: 4, cols: 5, data: new Float32Array([
      0.10, 0.25, -Infinity, 0.05, 0.60,
      0.33, 0.12, 0.48, -Infinity, 0.07,
      0.90, 0.01, 0.20, 0.15, 0.30,
      0.44, 0.56, 0.18, 0.72, 0.05,
    ]),
  };
  const rowLabels = ['the', 'cat', XSS, 'sat'];
  const colLabels = ['the', 'cat', 'sat', 'on', XSS];
  Object.assign(document.getElementById('weights'), { matrix: weights, rowLabels, colLabels });

  const signed = { rows: 3, cols: 3, data: [-2, -1, 0, 0.5, 1, 1.5, 2, -0.25, 0] };
  document.getElementById('signed').matrix = signed;

  const lab = await init();
  const pe = lab.positionalEncoding(50, 16);
  document.getElementById('pe').matrix = pe;
  document.getElementById('pe-heatmap').matrix = pe;

  const tokens = lab.tokenize('The cat sat on the mat');
  // Causal self-attention over the tokens; `seed` picks the inputs (a lesson recomputing after an edit).
  window.recompute = (seed) => {
    const x = lab.randn(tokens.length, 8, seed);
    const mha = new lab.MultiHeadAttention({ dModel: 8, numHeads: 2, bias: false, seed: 3 });
    const trace = mha.trace(x, x, x, { causal: true });
    mha.dispose();
    return trace;
  };
  // The tutorials' batched trace: x (2, 4, 8) through 2 heads, each step's tensors { shape, data }.
  window.tensorTrace = () => {
    const mha = new lab.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 3 });
    const x = lab.randn([2, 4, 8], 2);
    const trace = mha.trace(x, x, x, { causal: true });
    mha.dispose();
    return trace;
  };
  const steps = window.recompute(1);
  const stepper = document.getElementById('stepper');
  Object.assign(stepper, { steps, labels: { rows: tokens, cols: tokens } });

  // Nested heatmaps (in pe-plot and the stepper) render a microtask later: wait for a frame.
  await new Promise(requestAnimationFrame);
  document.body.dataset.result = JSON.stringify({
    weights: { ...weights, data: Array.from(weights.data, (v) => (v === -Infinity ? '-Infinity' : v)), rowLabels, colLabels },
    signed,
    pe: { rows: pe.rows, cols: pe.cols },
    steps: steps.map((s) => s.id),
    tokens,
  });
} catch (error) {
  console.error(String(error?.stack ?? error));
}
document.body.dataset.done = 'true';
