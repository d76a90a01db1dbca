// Unknown option names: an options object whose misspelt key ("casual" for "causal") would otherwise be
// ignored, and the call would compute something else with no word said. Every call names what it takes.
import { AttnLabError } from './errors.js';

// How far apart two names are: edits (insert, delete, replace, swap two neighbours) between them once
// case, '_' and '-' are set aside, so 'num_heads' and 'NumHeads' are both 0 from 'numHeads'.
function distance(a, b) {
  const s = a.toLowerCase().replace(/[_-]/g, '');
  const t = b.toLowerCase().replace(/[_-]/g, '');
  // d[i][j]: edits between s[0, i) and t[0, j) (optimal string alignment).
  const d = Array.from({ length: s.length + 1 }, (_, i) => [i, ...new Array(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j++) d[0][j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[s.length][t.length];
}

// The accepted name nearest to `name`, if it is near enough to be a slip (a third of its letters, at
// least one), else null.
export function nearestName(name, accepted) {
  let best = null;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of accepted) {
    const d = distance(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

// 'unknown option "casual" — did you mean "causal"? (it takes causal, mask, weights)'; `what` names the
// kind of name ('option', 'attribute', 'config field').
export function unknownNameMessage(name, accepted, what = 'option') {
  const near = nearestName(name, accepted);
  const list = accepted.length ? accepted.join(', ') : 'none';
  return `unknown ${what} "${name}"${near ? ` — did you mean "${near}"?` : ''} (it takes ${list})`;
}

// Refuses the first own key of `object` that is not in `accepted`, naming the call.
export function refuseUnknownNames(fn, object, accepted, what = 'option') {
  for (const key of Object.keys(object)) {
    if (!accepted.includes(key)) throw new AttnLabError(`${fn}: ${unknownNameMessage(key, accepted, what)}`);
  }
}
