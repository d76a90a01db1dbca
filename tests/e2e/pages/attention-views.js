// The attention views' test page: causal softmax weights made here from a fixed pseudo-random
// sequence (the views only draw what they are given, so no wasm is needed), shaped as
// GPTModel.forward(ids, { attention: true }).attention returns them: Matrix[layer][head].
// The data is on window.attention and window.tokens; the views' events on window.seen.
import '/web/dist/components.js';

const tokens = ['The', ' animal', ' didn', '’t', ' cross', ' the', ' street', ' because', ' it', ' was', ' too', ' tired'];
const n = tokens.length;
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

// One head's n×n causal weights: each row a softmax over keys 0 … i of sharp random scores.
function head() {
  const data = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let j = 0; j <= i; j++) sum += (data[i * n + j] = Math.exp(4 * random()));
    for (let j = 0; j <= i; j++) data[i * n + j] /= sum;
  }
  return { rows: n, cols: n, data };
}

window.seen = [];
for (const type of ['head-select', 'row-hover', 'query-change']) {
  document.addEventListener(type, (event) => window.seen.push({ type, id: event.target.id, ...event.detail }));
}

try {
  const attention = Array.from({ length: 3 }, () => Array.from({ length: 4 }, head));
  window.attention = attention;
  window.tokens = tokens;
  Object.assign(document.getElementById('model'), { attention, tokens: tokens.map((t) => t.trim()) });
  Object.assign(document.getElementById('heads'), { attention: attention[1], tokens: tokens.map((t) => t.trim()) });
  Object.assign(document.getElementById('colors'), { attention: attention[2][1], tokens });
  Object.assign(document.getElementById('heatmap'), { matrix: attention[0][0], rowLabels: tokens, colLabels: tokens, domain: [0, 1] });
  // The sinusoidal table by its formula (PE[p][2i] = sin(p / 10000^(2i/d)), PE[p][2i+1] = cos(…)).
  const d = 16;
  const pe = { rows: 40, cols: d, data: new Float32Array(40 * d) };
  for (let p = 0; p < 40; p++) {
    for (let k = 0; k < d; k++) pe.data[p * d + k] = (k % 2 ? Math.cos : Math.sin)(p / 10000 ** ((k - (k % 2)) / d));
  }
  document.getElementById('pe').matrix = pe;
  await new Promise(requestAnimationFrame);
} catch (error) {
  console.error(String(error?.stack ?? error));
}
document.body.dataset.done = 'true';
