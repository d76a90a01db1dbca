// Who wrote this logit: the page shows every part's direct contribution to logit[target] − logit[baseline]
// at the last position (ln_final's scale frozen), their sum and the model's own difference; computed here
// with the package's directLogitAttribution and its plain forward pass.
const DEFAULT_PROMPT = 'Thou shalt love thy neighbour as';
export const states = [
  { prompt: DEFAULT_PROMPT, target: ' thyself', baseline: ' himself' },  // the defaults
  { prompt: 'And the LORD spake unto Moses, saying', target: ' unto', baseline: ' the' },
  { prompt: 'In the beginning God created the heaven and the', target: ' earth', baseline: ' heaven' },
];

export async function expected(lab, { model, tokenizer }, state) {
  let ids = Array.from(tokenizer.encode(state.prompt));
  if (ids.length === 0) ids = Array.from(tokenizer.encode(DEFAULT_PROMPT));
  const [target] = tokenizer.encode(state.target), [baseline] = tokenizer.encode(state.baseline);
  const { terms, sum } = model.directLogitAttribution(ids, { target, baseline });
  const logits = model.forward(ids, { logits: 'last' }).logits.data;
  return {
    ...Object.fromEntries(terms.map(({ label, value }) => [label, [value]])),
    sum: [sum],
    'logit difference': [logits[target] - logits[baseline]],
  };
}
