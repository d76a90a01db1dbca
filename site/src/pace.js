// Pacing a training worker's "watch" speed: the wait before the next chunk of steps counts from when the last
// chunk started, not from when it ended, so the steps come at the stated rate as long as a chunk takes less
// time than the rate allows (a fixed pause after each chunk gave 38 steps a second for a stated 50 on a
// desktop, 32 on a phone). Where a chunk takes longer, the next starts at once: as fast as the device goes.
export function pacer(now = () => performance.now()) {
  let due = null;  // when the next chunk should start, ms
  return {
    // → ms to wait before the next chunk of `steps` steps at `stepsPerSecond`.
    wait(steps, stepsPerSecond) {
      const t = now();
      due = Math.max((due ?? t) + (1000 * steps) / stepsPerSecond, t);  // behind: start now, and no burst to catch up
      return due - t;
    },
    // A new run, or a resume after a pause: start counting again.
    reset() { due = null; },
  };
}
