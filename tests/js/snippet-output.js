// What a site snippet printed, read back for tests/js/snippets.test.js: the snippets print each quantity
// as "label: value", the value a number or a torch tensor (torch.set_printoptions(precision=6,
// sci_mode=False)) that may run over several lines; a line that starts without a space and holds
// "label:" starts the next one.
const LABEL = /^([^\s:][^:]*?):(?:\s|$)(.*)$/;
const NUMBER = /-?inf|nan|-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi;

// printed text → Map(label → number[]); a tensor shortened with "..." is refused (set its print threshold).
export function printedNumbers(text) {
  const blocks = new Map();
  let current = null;
  for (const line of text.split('\n')) {
    const match = LABEL.exec(line);
    if (match) {
      current = [];
      blocks.set(match[1].trim(), current);
    }
    if (!current) continue;
    // Only the value: not the label, nor torch's annotations (dtype=torch.float32, grad_fn=<…0>, size=…).
    const value = (match ? match[2] : line).replace(/(dtype|grad_fn|size|device)=\S*/g, '');
    if (value.includes('...')) throw new Error(`a printed tensor was shortened with "...": ${line}`);
    for (const token of value.match(NUMBER) ?? []) current.push(parseNumber(token));
  }
  return blocks;
}

function parseNumber(token) {
  const t = token.toLowerCase();
  if (t === 'nan') return NaN;
  if (t === 'inf') return Infinity;
  if (t === '-inf') return -Infinity;
  return Number(token);
}

// How close a printed float32 number must be to the package's (float32 both): 1e-5 of the largest
// magnitude in that quantity (float32 sums in another order differ by a few ulps of the largest term),
// plus 1e-6 for the print's six decimals. Infinities and NaN must match exactly. relative: another
// share of the largest, and absolute: more room, each for a caller that says why (a trained model's four
// layers; a sum of log-probabilities near 0, say).
export const RELATIVE = 1e-5;
export const PRINTED = 1e-6;
export function closeTo(printed, expected, label, relative = RELATIVE, absolute = 0) {
  if (printed.length !== expected.length) {
    return `${label}: printed ${printed.length} numbers, the page shows ${expected.length}`;
  }
  const scale = Math.max(0, ...Array.from(expected, (v) => (Number.isFinite(v) ? Math.abs(v) : 0)));
  const tolerance = relative * scale + PRINTED + absolute;
  for (let i = 0; i < expected.length; i++) {
    const [a, b] = [printed[i], expected[i]];
    const same = Number.isFinite(b) ? Math.abs(a - b) <= tolerance : Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
    if (!same) return `${label}[${i}]: printed ${a}, the page shows ${b} (tolerance ${tolerance.toExponential(1)})`;
  }
  return null;
}

// A bar chart a trained program prints as the page draws it: its title line, then one line per bar,
// "  <token as the page labels it>   12.3%", "  (chosen)" after the drawn one. → [{ label, percent,
// chosen }] (percent as printed, a string), or null when no line starts with the title.
export function printedChart(text, title) {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(title));
  if (start < 0) return null;
  const rows = [];
  for (const line of lines.slice(start + 1)) {
    const bar = /^ {2}(.+?) +(\d+(?:\.\d+)?(?:e-?\d+)?)%( {2}\(chosen\))?$/.exec(line);
    if (!bar) break;
    rows.push({ label: bar[1], percent: bar[2], chosen: Boolean(bar[3]) });
  }
  return rows;
}

// Whether a percentage printed to its last digit ("12.3", "0.031") is `p` (a probability): within half a
// unit of that digit, and a float32 rounding beyond it.
export function samePercent(printed, p) {
  const decimals = printed.includes('.') ? printed.split('.')[1].replace(/e.*$/, '').length : 0;
  const mantissa = /e(-?\d+)$/.exec(printed);
  const unit = 10 ** (-decimals + (mantissa ? Number(mantissa[1]) : 0));
  return Math.abs(Number(printed) - 100 * p) <= unit / 2 + 1e-4 * Math.max(1, 100 * p);
}
