// The linked-views test page: causal weights for 2 layers × 3 heads over 5 tokens, made here from a
// fixed pseudo-random sequence (the views only draw what they are given: no wasm). The page itself
// only hands the data to the views; linking is the `link` attributes in the HTML. The views' events
// are on window.seen.
import '/web/dist/components.js';

const tokens = ['The', ' cat', ' sat', ' on', ' it'];
const n = tokens.length;
let seed = 11;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

// One head's n×n causal weights: each row a softmax over keys 0 … i.
function head() {
  const data = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let j = 0; j <= i; j++) sum += (data[i * n + j] = Math.exp(3 * random()));
    for (let j = 0; j <= i; j++) data[i * n + j] /= sum;
  }
  return { rows: n, cols: n, data };
}

window.seen = [];
for (const type of ['row-hover', 'head-select', 'query-change']) {
  document.addEventListener(type, (event) => window.seen.push({ type, id: event.target.id, ...event.detail }));
}

try {
  const attention = Array.from({ length: 2 }, () => Array.from({ length: 3 }, head));
  const trimmed = tokens.map((t) => t.trim());
  Object.assign(document.getElementById('model'), { attention, tokens: trimmed });
  for (const id of ['heads', 'other-heads']) Object.assign(document.getElementById(id), { attention: attention[1], tokens: trimmed });
  for (const id of ['colors', 'other-colors']) Object.assign(document.getElementById(id), { attention: attention[1][0], tokens });
  for (const id of ['map', 'other-map']) Object.assign(document.getElementById(id), { matrix: attention[1][0], rowLabels: trimmed, colLabels: trimmed });
  await new Promise(requestAnimationFrame);
} catch (error) {
  console.error(String(error?.stack ?? error));
}
document.body.dataset.done = 'true';
