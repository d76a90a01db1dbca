// The logit lens lesson's Try-this, DOM-free (tests/js/lens-exercise.test.js checks it against the lesson's
// PyTorch program): at which point does the followed token first become the favourite? rows are
// model.logitLens(ids, { position, target }).rows; a guess is a row's index, or −1 for "never".
import { pointLabel } from '../../lens-points.js';

// The first row where the target ranks 1, or −1.
export const firstFavourite = (rows) => rows.findIndex((row) => row.target.rank === 1);

export function checkPointGuess(rows, guess) {
  const first = firstFavourite(rows);
  const name = (i) => (i < 0 ? 'at no point' : `at ${pointLabel(rows[i].point)}`);
  if (guess < -1 || guess >= rows.length) return { correct: false, message: 'Choose one of the points, or “never”.' };
  if (guess === first) return { correct: true, message: `Right: it first leads ${name(first)}.` };
  return { correct: false, message: `Not there: it first leads ${name(first)}` +
    (guess >= 0 ? `; ${name(guess)} it is ranked ${rows[guess].target.rank}.` : '.') };
}
