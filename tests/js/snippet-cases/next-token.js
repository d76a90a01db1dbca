// The next token: the page shows the model's distribution (temperature 1), the reshaped one and the
// seeded draw; computed here with the package's forward and sample.
export const states = [
  { prompt: 'Thou shalt love thy neighbour as', temperature: 100, topK: 0, topP: 100, penalty: 100, seed: 0 },  // the defaults
  { prompt: 'And the LORD said unto Moses,', temperature: 70, topK: 20, topP: 90, penalty: 130, seed: 5 },
  { prompt: 'In the beginning God', temperature: 0, topK: 0, topP: 100, penalty: 100, seed: 3 },  // greedy
  { prompt: '', temperature: 150, topK: 0, topP: 40, penalty: 100, seed: 11 },  // an empty box reads "In the beginning"
];

export async function expected(lab, { model, tokenizer }, state) {
  let ids = Array.from(tokenizer.encode(state.prompt));
  if (ids.length === 0) ids = Array.from(tokenizer.encode('In the beginning'));
  const last = model.forward(ids, { logits: 'last' }).logits.data;
  const penalty = state.penalty / 100;
  const { token, probabilities } = lab.sample(last, { temperature: state.temperature / 100, topK: state.topK, topP: state.topP / 100,
    seed: state.seed, ...(state.penalty > 100 ? { repetitionPenalty: penalty, context: ids } : {}) });
  return {
    'prompt ids': ids,
    probabilities: lab.sample(last, { temperature: 1 }).probabilities,
    'reshaped probabilities': probabilities,
    'can still be drawn': [probabilities.filter((p) => p > 0).length],
    'drawn token': [token],
  };
}
