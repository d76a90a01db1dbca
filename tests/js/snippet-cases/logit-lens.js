// The logit lens: the page shows, for every point (each block's resid_pre and resid_mid, the final
// resid_post) and every position, the token that point favours, and for the chosen position (−1: the
// last) the followed token's probability and rank at each point (an empty target: the model's own
// prediction there); computed here with the package's logitLens.
import { pointLabel } from '../../../site/src/lens-points.js';

const DEFAULT_PROMPT = 'Thou shalt love thy neighbour as';
export const states = [
  { prompt: DEFAULT_PROMPT, position: -1, target: '' },  // the defaults
  { prompt: DEFAULT_PROMPT, position: -1, target: ' thyself' },
  { prompt: 'And God said, Let there be light: and there was', position: 3, target: ' Let' },
  { prompt: 'In the beginning God created the heaven and the', position: 40, target: '' },  // past the end: the last
];


export async function expected(lab, { model, tokenizer }, state) {
  let ids = Array.from(tokenizer.encode(state.prompt));
  if (ids.length === 0) ids = Array.from(tokenizer.encode(DEFAULT_PROMPT));
  const position = state.position < 0 ? ids.length - 1 : Math.min(state.position, ids.length - 1);
  const grid = model.logitLens(ids, { k: 1 });
  const out = {};
  grid.points.forEach((point, i) => { out[`${pointLabel(point)} favourites`] = grid.cells[i].map((cell) => cell.top[0].id); });
  const target = state.target ? tokenizer.encode(state.target)[0] : grid.cells.at(-1)[position].top[0].id;
  const { rows } = model.logitLens(ids, { position, k: 1, target });
  for (const row of rows) {
    out[`${pointLabel(row.point)} probability`] = [row.target.probability];
    out[`${pointLabel(row.point)} rank`] = [row.target.rank];
  }
  return out;
}
