// Who wrote this logit: the page shows every part's direct contribution to logit[target] − logit[baseline]
// at the chosen position (−1: the last; ln_final's scale frozen), their sum and the model's own difference; computed here
// with the package's directLogitAttribution and its plain forward pass.
const DEFAULT_PROMPT = 'Thou shalt love thy neighbour as';
export const states = [
  { prompt: DEFAULT_PROMPT, target: ' thyself', baseline: ' himself', position: -1 },  // the defaults
  { prompt: 'And the LORD spake unto Moses, saying', target: ' unto', baseline: ' the', position: -1 },
  { prompt: 'And the LORD spake unto Moses, saying', target: ' spake', baseline: ' said', position: 2 },  // after “ LORD”
  { prompt: 'Thou shalt love thy neighbour as', target: ' neighbour', baseline: ' God', position: 40 },  // past the end: the last
  { prompt: 'In the beginning God created the heaven and the', target: ' earth', baseline: ' heaven', position: -1 },
];

export async function expected(lab, { model, tokenizer }, state) {
  let ids = Array.from(tokenizer.encode(state.prompt));
  if (ids.length === 0) ids = Array.from(tokenizer.encode(DEFAULT_PROMPT));
  const [target] = tokenizer.encode(state.target), [baseline] = tokenizer.encode(state.baseline);
  const position = state.position < 0 ? ids.length - 1 : Math.min(state.position, ids.length - 1);
  const { terms, sum } = model.directLogitAttribution(ids, { target, baseline, position });
  const all = model.forward(ids).logits, logits = all.data.subarray(position * all.cols, (position + 1) * all.cols);
  return {
    ...Object.fromEntries(terms.map(({ label, value }) => [label, [value]])),
    sum: [sum],
    'logit difference': [logits[target] - logits[baseline]],
  };
}
