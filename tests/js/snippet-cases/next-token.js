// The next token: the page shows the model's distribution (temperature 1) and the reshaped one as the
// 10 most likely tokens each, by their labels, the seeded draw marked (added as an eleventh bar when it
// is rarer), and how many tokens can still be drawn; computed here with the package's forward and sample.
import { tokenLabel } from '../../../site/src/token-label.js';

export const states = [
  { prompt: 'Thou shalt love thy neighbour as', temperature: 100, topK: 0, topP: 100, penalty: 100, seed: 0 },  // the defaults
  { prompt: 'And the LORD said unto Moses,', temperature: 70, topK: 20, topP: 90, penalty: 130, seed: 5 },
  { prompt: 'In the beginning God', temperature: 0, topK: 0, topP: 100, penalty: 100, seed: 3 },  // greedy
  { prompt: '', temperature: 150, topK: 0, topP: 40, penalty: 100, seed: 11 },  // an empty box reads "In the beginning"
  { prompt: 'And God said', temperature: 300, topK: 0, topP: 100, penalty: 100, seed: 2 },  // flat: a draw outside the top 10
];

// The page's output reads like its page: two charts of ten bars and a few lines, not the 4,096
// probabilities twice (issue 53, item 7).
export const maxLines = 30;

const SHOWN = 10;
const topIds = (p, k) => Array.from(p.keys()).sort((a, b) => p[b] - p[a] || a - b).slice(0, k);

function draw(lab, { model, tokenizer }, state) {
  let ids = Array.from(tokenizer.encode(state.prompt));
  if (ids.length === 0) ids = Array.from(tokenizer.encode('In the beginning'));
  const last = model.forward(ids, { logits: 'last' }).logits.data;
  const penalty = state.penalty / 100;
  const plain = lab.sample(last, { temperature: 1 }).probabilities;
  const { token, probabilities } = lab.sample(last, { temperature: state.temperature / 100, topK: state.topK, topP: state.topP / 100,
    seed: state.seed, ...(state.penalty > 100 ? { repetitionPenalty: penalty, context: ids } : {}) });
  return { ids, plain, token, probabilities };
}

export async function expected(lab, loaded, state) {
  const { ids, token, probabilities } = draw(lab, loaded, state);
  return {
    'prompt ids': ids,
    'can still be drawn': [probabilities.filter((p) => p > 0).length, probabilities.length],
    'drawn token': [token],
  };
}

// The charts as the page draws them: title → [{ label, probability, chosen }].
export async function charts(lab, loaded, state) {
  const { plain, token, probabilities } = draw(lab, loaded, state);
  const bar = (p, chosen) => (id) => ({ label: tokenLabel(loaded.tokenizer, id), probability: p[id], chosen: chosen === id });
  const shaped = topIds(probabilities, SHOWN).filter((id) => probabilities[id] > 0);
  if (!shaped.includes(token)) shaped.push(token);
  return {
    'The model\'s distribution (temperature 1, nothing cut): the 10 most likely tokens': topIds(plain, SHOWN).map(bar(plain, null)),
    'After the penalty, temperature, top-k and top-p: the distribution the draw uses': shaped.map(bar(probabilities, token)),
  };
}
