// attnlab-kjv-llama's training is reproducible from its committed script: the first steps, rerun from
// scratch here (scripts/llama/train.py with --stop-after, on token streams made here by the same
// cpp/train/kjv_tokens from Debian's bible-kjv), log the losses, learning rates and gradient norms the
// committed training-log.jsonl holds, and the same held-out loss at step 0. Then a resume from the stop
// goes on to the log's next step: a stop loses nothing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const repo = new URL('../../', import.meta.url).pathname;
const committed = readFileSync(join(repo, 'web/models/kjv-llama/training-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const logged = (type, step) => committed.find((r) => r.type === type && r.step === step);
const records = (out) => readFileSync(join(out, 'training-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

test('attnlab-kjv-llama: the first steps rerun as the committed log has them, and a stop resumes exactly', () => {
  const tokensTool = join(repo, 'build/native/cpp/train/kjv_tokens');
  assert.ok(existsSync(tokensTool), `${tokensTool}: the native build makes it (scripts/test.sh builds it first)`);
  const work = mkdtempSync(join(tmpdir(), 'attnlab-llama-train-'));
  try {
    const listing = join(work, 'kjv-listing.txt');
    writeFileSync(listing, execFileSync('bible', ['-f', 'Gen1:1-Rev22:21'], { maxBuffer: 64 << 20 }));
    mkdirSync(join(work, 'tokens'));
    execFileSync(tokensTool, ['--listing', listing, '--vocab', join(repo, 'web/models/kjv'), '--out', join(work, 'tokens')]);
    const out = join(work, 'run');
    const train = (...extra) => execFileSync('/usr/bin/python3', ['scripts/llama/train.py', '--config', 'web/models/kjv-llama/training-config.json',
      '--tokens', join(work, 'tokens'), '--out', out, '--threads', '2', ...extra], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
    train('--stop-after', '3');
    const first = records(out);
    // Float sums in another thread split round differently: the log's 5 decimals agree to about 1e-4.
    assert.ok(Math.abs(first.find((r) => r.type === 'eval').heldout_loss - logged('eval', 0).heldout_loss) < 2e-4);
    for (const step of [0, 1, 2]) {
      const ours = first.find((r) => r.type === 'step' && r.step === step);
      const theirs = logged('step', step);
      assert.equal(ours.lr, theirs.lr, `step ${step} learning rate`);
      assert.ok(Math.abs(ours.loss - theirs.loss) < 2e-4, `step ${step}: loss ${ours.loss}, logged ${theirs.loss}`);
      assert.ok(Math.abs(ours.grad_norm - theirs.grad_norm) < 2e-3, `step ${step}: grad norm ${ours.grad_norm}, logged ${theirs.grad_norm}`);
    }
    assert.deepEqual(first.at(-1).type, 'stop');
    assert.equal(first.at(-1).at_step, 3);
    // Resumed from the stop's checkpoint, step 3 is the uninterrupted run's.
    train('--resume', '--stop-after', '4');
    const resumed = records(out);
    assert.ok(resumed.some((r) => r.type === 'resume' && r.from_step === 3));
    const step3 = resumed.find((r) => r.type === 'step' && r.step === 3);
    assert.ok(Math.abs(step3.loss - logged('step', 3).loss) < 2e-4, `step 3 after the resume: ${step3.loss}, logged ${logged('step', 3).loss}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
