// Round steps for axes: 1, 2 or 5 × 10^k, so ticks and thinned-out labels read 0, 50, 100 and not 0, 73, 146.

// The smallest round step that is at least `raw`.
export function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw * (1 - 1e-9));
}

// Round tick values covering [lo, hi] with at most about `count` ticks; with `integer`, whole numbers
// only (a step of at least 1).
export function niceTicks(lo, hi, count, { integer = false } = {}) {
  const raw = niceStep((hi - lo) / Math.max(1, count - 1));
  const step = integer ? Math.max(1, raw) : raw;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.round(v / step) * step);
  return ticks;
}
