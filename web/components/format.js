// How numbers read in the components: a true minus sign (U+2212, the one "−∞" uses), no "−0.00",
// infinities as symbols, and NaN never shown as "NaN".
const MINUS = '\u2212';

function signed(text) {
  if (!text.startsWith('-')) return text;
  const rest = text.slice(1);
  // "-0.00" after rounding reads as a sign error to a learner; it is zero at this precision.
  return /^[0.]*$/.test(rest) ? rest : MINUS + rest;
}

function special(value) {
  if (value === -Infinity) return `${MINUS}∞`;
  if (value === Infinity) return '∞';
  if (Number.isNaN(value)) return '';
  return null;
}

// The printed cell value: `decimals` places.
export function formatFixed(value, decimals) {
  return special(value) ?? signed(value.toFixed(decimals));
}

// The exact value for the tooltip and screen readers: 6 significant digits, the precision a float32
// value carries.
export function formatExact(value) {
  return special(value) ?? signed(Number(value).toPrecision(6));
}

// Tick labels: as few digits as show the value (0.5, −1, 12.25).
export function formatTick(value, decimals) {
  return signed(String(Number(value.toFixed(decimals))));
}

// The colour legend's ticks at the low end, middle and high end of [lo, hi], printed with the
// heatmap's `decimals` where that states them, else with the fewest more places that do: a tick may
// read at most 2.5% of the width away from where it sits (decimals 0 on [0, 1] reads 0, 0.5, 1).
export function legendTickLabels(lo, hi, decimals) {
  const values = [lo, (lo + hi) / 2, hi];
  const tolerance = 0.025 * Math.abs(hi - lo);
  let places = decimals;
  while (places < decimals + 4 && values.some((v) => Math.abs(Number(v.toFixed(places)) - v) > tolerance)) places++;
  return values.map((v) => formatTick(v, places));
}
