// Timing: median, min and max milliseconds per call over SAMPLES samples; each sample repeats the
// call until at least 25 ms have passed, so short calls are not lost in timer resolution.
export const SAMPLES = 15;

export async function time(impl) {
  await impl.run();
  const samples = [];
  for (let s = 0; s < SAMPLES; s++) {
    let iterations = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      if (impl.async) await impl.run();
      else impl.run();
      iterations++;
      elapsed = performance.now() - start;
    } while (elapsed < 25);
    samples.push(elapsed / iterations);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(SAMPLES / 2)], min: samples[0], max: samples.at(-1) };
}

// Largest |a − b| relative to max |b|: every implementation is checked against attnlab before timing.
export function mismatch(a, b) {
  let worst = 0;
  let scale = 1e-12;
  for (let i = 0; i < b.length; i++) {
    worst = Math.max(worst, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return a.length === b.length ? worst / scale : Infinity;
}
