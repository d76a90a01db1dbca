// Tokens: the page shows the ids, one piece's merges replayed up to a step, and the embedding rows of
// the first 24 ids; computed here with the package's tokenizer and the model's wte.
export const states = [
  { text: 'In the beginning God created the heaven and the earth.', piece: 1, step: 99 },  // the lesson's defaults
  { text: 'The U.S.A. and the E.U. signed in 1611 — naïve café, 3.14, 🙂!', piece: 13, step: 2 },
  { text: 'Jerusalem,  Jerusalem,\tthou that killest   the prophets\n\n', piece: 2, step: 0 },
  { text: '', piece: 0, step: 99 },  // an empty box: no ids, no rows
];

export async function expected(lab, { model, tokenizer }, state) {
  const pieces = tokenizer.encodeWithSteps(state.text);
  const ids = pieces.flatMap((p) => Array.from(p.ids));
  const out = { pieces: [pieces.length], ids };
  if (pieces.length) {
    const piece = pieces[Math.min(state.piece, pieces.length - 1)];
    const at = Math.min(state.step, piece.steps.length);
    out['merge ranks'] = piece.steps.map((s) => s.rank);
    out['tokens at this step'] = at === 0 ? Array.from(piece.start) : Array.from(piece.steps[at - 1].tokens);
  }
  const wte = model.tensor('wte.weight'), d = model.config.dModel;
  if (ids.length) out['embedding rows'] = ids.slice(0, 24).flatMap((id) => Array.from(wte.data.subarray(id * d, (id + 1) * d)));
  return out;
}
