// Timing: median, min and max milliseconds per call over SAMPLES samples; each sample repeats the
// call until at least 25 ms have passed, so short calls are not lost in timer resolution.
export const SAMPLES = 15;

// Milliseconds per call over one sample of `impl`.
async function sample(impl) {
  let iterations = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    if (impl.async) await impl.run();
    else impl.run();
    iterations++;
    elapsed = performance.now() - start;
  } while (elapsed < 25);
  return elapsed / iterations;
}

// Several implementations timed against each other, interleaved: sample s of every one is taken
// before sample s + 1 of any, so a change in the machine's speed (this VM's drifts by up to 1.5×
// over minutes) falls on all of them alike instead of on whichever was running then.
// → [{ median, min, max }] in the order of `impls`.
export async function timeInterleaved(impls) {
  for (const impl of impls) await impl.run();  // first calls (compilation, allocation) untimed
  const samples = impls.map(() => []);
  for (let s = 0; s < SAMPLES; s++) {
    for (const [i, impl] of impls.entries()) samples[i].push(await sample(impl));
  }
  return samples.map((ms) => {
    ms.sort((a, b) => a - b);
    return { median: ms[Math.floor(SAMPLES / 2)], min: ms[0], max: ms.at(-1) };
  });
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
