// KV cache: the page replays the prompt through a session, draws `steps` tokens (temperature 0.8, top-k
// 40, the penalty, seed · 1000 + step) and shows the newest query's weights and the chosen head's K and
// V cache; computed here with the package's session and sample.
export const states = [
  { prompt: 'And it came to pass', steps: 3, penalty: 120, samples: '20', seed: 0, layer: 0, head: 0 },  // the defaults
  { prompt: 'The LORD is my shepherd;', steps: 12, penalty: 100, seed: 4, layer: 2, head: 3 },
  { prompt: '', steps: 0, penalty: 150, seed: 1, layer: 3, head: 1 },  // an empty box, no draw yet
];

export async function expected(lab, { model, tokenizer }, state) {
  let ids = Array.from(tokenizer.encode(state.prompt));
  if (ids.length === 0) ids = Array.from(tokenizer.encode('And it came to pass'));
  const session = model.session();
  try {
    let step;
    for (const id of ids) step = session.append(id);
    const tokens = [...ids];
    for (let s = 0; s < state.steps; s++) {
      const { token } = lab.sample(step.logits, { temperature: 0.8, topK: 40, repetitionPenalty: state.penalty / 100, context: tokens,
        seed: state.seed * 1000 + s });
      tokens.push(token);
      step = session.append(token);
    }
    const dHead = model.config.dModel / model.config.numHeads;
    const cache = session.cache(state.layer);
    const headColumns = (m) => Array.from({ length: m.rows }, (_, r) =>
      Array.from(m.data.subarray(r * m.cols + state.head * dHead, r * m.cols + (state.head + 1) * dHead))).flat();
    const n = tokens.length;
    return { tokens, attention: step.attention[state.layer][state.head].data, 'K cache': headColumns(cache.keys), 'V cache': headColumns(cache.values),
      'multiply-adds for the last token, with the cache and without': [model.multiplyAdds(n, { cache: true }), model.multiplyAdds(n, { cache: false })] };
  } finally {
    session.dispose();
  }
}
