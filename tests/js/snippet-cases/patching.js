// Patching: the page shows both runs' logit differences, the resid_pre and per-head patching grids, the
// sender (the strongest head outside the last layer unless chosen), its path-patching effect on each later
// head's q, k and v, and how much is lost when it and the next head are taken away, and attribution patching's
// estimates of the two grids; computed here with the package's activationPatching, pathPatching, runWithHooks
// and attributionPatching.
const PRESET = { clean: 'And Abner saw Aaron. And Abner saw', corrupted: 'And Abner met Aaron. And Abner saw' };
export const states = [
  { ...PRESET, target: ' Aaron', baseline: ' Abner', layer: -1, head: -1 },  // the defaults
  { clean: 'And the son of Abraham went out. And the son of', corrupted: 'And the son of Abner went out. And the son of',
    target: ' Abraham', baseline: ' Abner', layer: 1, head: 3 },
  { clean: 'In the beginning God created the heaven and the', corrupted: 'In the beginning God created the water and the',
    target: ' earth', baseline: ' water', layer: 9, head: 0 },  // a layer past the last sender layer: the last one that has a later layer
];

export async function expected(lab, { model, tokenizer }, state) {
  const ids = (text, fallback) => (tokenizer.encode(text).length ? tokenizer.encode(text) : tokenizer.encode(fallback));
  const clean = ids(state.clean, PRESET.clean), corrupted = ids(state.corrupted, PRESET.corrupted);
  const metric = { target: tokenizer.encode(state.target)[0], baseline: tokenizer.encode(state.baseline)[0] };
  const { numLayers: L, numHeads: H } = model.config;
  const resid = await model.activationPatching(clean, corrupted, { what: 'resid_pre', metric });
  const heads = await model.activationPatching(clean, corrupted, { what: 'z', per: 'head', metric });
  let sender;
  if (state.layer < 0 || state.head < 0) {
    let best = 0;
    for (let i = 1; i < (L - 1) * H; i++) if (heads.grid.data[i] > heads.grid.data[best]) best = i;
    sender = { layer: Math.floor(best / H), head: best % H };
  } else sender = { layer: Math.min(state.layer, L - 2), head: Math.min(state.head, H - 1) };
  const path = [];
  for (let l = sender.layer + 1; l < L; l++) for (let h = 0; h < H; h++) for (const input of ['q', 'k', 'v']) {
    path.push(model.pathPatching(clean, corrupted, { sender, receivers: [{ layer: l, head: h, input }], metric }).normalised);
  }
  // the head that restores most after the sender (ties: the first in layer-major order)
  const order = Array.from(heads.grid.data.keys()).sort((a, b) => heads.grid.data[b] - heads.grid.data[a] || a - b);
  const second = order.map((i) => ({ layer: Math.floor(i / H), head: i % H })).find((x) => x.layer !== sender.layer || x.head !== sender.head);
  const { cache } = model.runWithCache(corrupted, { names: [...new Set([sender, second].map((x) => `blocks.${x.layer}.attn.hook_z`))] });
  const lost = (taken) => {
    const { logits } = model.runWithHooks(clean, { patch: taken.map((x) => ({ name: `blocks.${x.layer}.attn.hook_z`, from: cache, heads: [x.head] })) });
    const last = (logits.rows - 1) * logits.cols;
    return (logits.data[last + metric.target] - logits.data[last + metric.baseline] - resid.clean) / (resid.clean - resid.corrupted);
  };
  return {
    'logit difference, clean and corrupted': [resid.clean, resid.corrupted],
    'resid_pre patched, layer × position': resid.grid.data,
    'z patched, layer × head': heads.grid.data,
    // attribution patching's estimates of the same two grids (the page's section under the grid of heads)
    'resid_pre estimated, layer × position': model.attributionPatching(clean, corrupted, { what: 'resid_pre', metric }).grid.data,
    'z estimated, layer × head': model.attributionPatching(clean, corrupted, { what: 'z', per: 'head', metric }).grid.data,
    sender: [sender.layer, sender.head],
    'path patched, receiver (later layers\' heads) × q, k, v': path,
    'second head': [second.layer, second.head],
    'taken away, the sender then it and the second head': [lost([sender]), lost([sender, second])],
  };
}
