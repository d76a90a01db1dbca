// The training workers' "watch" pacing (site/src/pace.js) on a clock the test moves by hand: the steps come at
// the stated rate whatever part of each interval the steps themselves take (a fixed pause after each chunk
// gave 38 steps a second for a stated 50), a chunk slower than the rate allows is followed at once with no
// burst to catch up, and a resume starts counting again.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { pacer } from '../../site/src/pace.js';

// Runs `chunks` chunks of `steps` steps, each taking `work(i)` ms, as a worker's schedule → chunk loop does;
// → the steps per second from the first chunk's start to the last one's end, and every wait.
function simulate({ chunks, steps, rate, work }) {
  let clock = 1000;
  const pace = pacer(() => clock);
  const waits = [];
  let firstStart = null;
  for (let i = 0; i < chunks; i++) {
    const wait = pace.wait(steps, rate);
    waits.push(wait);
    clock += wait;
    firstStart ??= clock;
    clock += work(i);
  }
  return { perSecond: (chunks * steps) / ((clock - firstStart) / 1000), waits };
}

test('watch speed: 50 steps a second when a chunk of 2 takes 15 ms of the 40 ms it may (the old pause gave 36)', () => {
  const { perSecond, waits } = simulate({ chunks: 100, steps: 2, rate: 50, work: () => 15 });
  assert.equal(waits[0], 40);
  assert.ok(waits.slice(1).every((w) => w === 25), `waits ${waits.slice(1, 4)}`);
  assert.ok(Math.abs(perSecond - 50) < 0.5, `${perSecond} steps a second`);
  assert.ok(2 / ((40 + 15) / 1000) < 37, 'a fixed 40 ms pause after each 15 ms chunk would have given 36');
});

test('a chunk slower than the rate allows is followed at once, and a fast one after it does not burst', () => {
  const { waits } = simulate({ chunks: 4, steps: 2, rate: 50, work: (i) => (i === 1 ? 100 : 10) });
  assert.deepEqual(waits, [40, 30, 0, 30]);
});

test('reset: a resume after a pause waits one interval, not the time the pause lasted or none', () => {
  let clock = 0;
  const pace = pacer(() => clock);
  assert.equal(pace.wait(10, 50), 200);
  clock = 5000;  // paused for seconds
  pace.reset();
  assert.equal(pace.wait(10, 50), 200);
});
