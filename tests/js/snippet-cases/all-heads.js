// All heads: the page shows every layer's and head's attention on the prompt and describes the chosen
// head by where each row's largest weight falls; computed here with the package's forward.
const DEFAULT_PROMPT = 'And God said, Let there be light: and there was light. And God saw the light, that it was good.';
export const states = [
  { prompt: DEFAULT_PROMPT, layer: 0, head: 0 },  // the defaults
  { prompt: 'Jesus wept. Then said the Jews, Behold how he loved him!', layer: 2, head: 1 },
  { prompt: '', layer: 3, head: 3 },  // an empty box reads the default prompt
];

export async function expected(lab, { model, tokenizer }, state) {
  let ids = Array.from(tokenizer.encode(state.prompt));
  if (ids.length === 0) ids = Array.from(tokenizer.encode(DEFAULT_PROMPT));
  const { attention } = model.forward(ids, { attention: true, logits: 'none' });
  const A = attention[state.layer][state.head], n = A.rows;
  // Where each row i ≥ 1 puts its largest weight (the first of equals), counted as the page's sentence says.
  const counts = [0, 0, 0];
  for (let i = 1; i < n; i++) {
    let best = 0;
    for (let j = 1; j <= i; j++) if (A.data[i * n + j] > A.data[i * n + best]) best = j;
    if (best === i - 1) counts[0]++;
    else if (best === 0) counts[1]++;
    else if (best === i) counts[2]++;
  }
  return {
    'every head': attention.flatMap((heads) => heads.flatMap((m) => Array.from(m.data))),
    'chosen head': A.data,
    'largest weight on the previous token, the first, itself (% of rows)': counts.map((c) => (100 * c) / Math.max(1, n - 1)),
  };
}
