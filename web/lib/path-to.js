// Path patching to the logits or to the residual stream (issue 51, item 4), on a GPT: Wang et al.'s sender with
// a receiver that is not a head. As ARENA writes both: the clean prompt with the sender's hook_z from the
// corrupted run and every other head's hook_z, from the sender's layer on, frozen at its clean value (the MLPs
// recomputed), so the sender's change travels only along paths with no head on them. To 'logits': that run's
// logit difference is the answer (the sender's direct path, through the MLPs). To a later block's
// hook_resid_pre: that run's value there is kept (step 1) and put into the clean prompt alone (step 2).
// Built from runWithCache and runWithHooks: (patched − clean) / (clean − corrupted), as pathPatching's heads.
import { fail } from './checks.js';
import { checkSameLength } from './patching-gap.js';

// `to` checked: 'logits', or the hook_resid_pre of a block after the sender's → { name, layer } (layer L: the logits).
export function checkPathTarget(fn, to, sender, numLayers) {
  if (to === 'logits') return { name: 'logits', layer: numLayers };
  const match = typeof to === 'string' ? /^blocks\.(\d+)\.hook_resid_pre$/.exec(to) : null;
  const layer = match ? Number(match[1]) : -1;
  if (layer <= sender.layer || layer >= numLayers) {
    if (sender.layer + 1 >= numLayers) fail(fn, `to must be 'logits': the sender is in the last layer, ${sender.layer}, and no block's residual stream comes after it; got ${JSON.stringify(to)}`);
    fail(fn, `to must be 'logits' or the hook_resid_pre of a block after the sender's layer ${sender.layer} ` +
      `(blocks.${sender.layer + 1}.hook_resid_pre … blocks.${numLayers - 1}.hook_resid_pre), got ${JSON.stringify(to)}`);
  }
  return { name: to, layer };
}

// metric: the checked LogitDiffMetric ({ target, baseline, position: −1 for the last }) → logits ↦ the difference.
const logitDifference = ({ target, baseline, position }) => (logits) => {
  const row = (position < 0 ? logits.rows - 1 : position) * logits.cols;
  return logits.data[row + target] - logits.data[row + baseline];
};

// clean and corrupted: checked ids of one length; sender { layer, head }; target from checkPathTarget;
// verdict(clean, corrupted) the caller's gap check → { clean, corrupted, patched, normalised, …verdict }.
export function pathPatchingTo(model, fn, clean, corrupted, { sender, target, metric, verdict }) {
  const { numLayers } = model.config;
  checkSameLength(fn, clean, corrupted);
  if (metric.position >= clean.length) fail(fn, `metric.position ${metric.position} is outside the prompt's positions 0 … ${clean.length - 1}`);
  const measure = logitDifference(metric);
  const z = (layer) => `blocks.${layer}.attn.hook_z`;
  const later = Array.from({ length: numLayers - sender.layer }, (_, i) => z(sender.layer + i));
  const cleanRun = model.runWithCache(clean, { names: later });
  const corruptedRun = model.runWithCache(corrupted, { names: [z(sender.layer)] });
  const [c, k] = [measure(cleanRun.logits), measure(corruptedRun.logits)];
  const warning = verdict(c, k);  // before the patched runs: a refusal costs nothing
  // Every head from the sender's layer on at its clean value, then the sender's from the corrupted run (in order).
  const freeze = [...later.map((name) => ({ name, from: cleanRun.cache })),
    { name: z(sender.layer), from: corruptedRun.cache, heads: [sender.head] }];
  let patched;
  if (target.name === 'logits') {
    patched = measure(model.runWithHooks(clean, { patch: freeze }).logits);
  } else {
    const step1 = model.runWithHooks(clean, { patch: freeze, keep: [target.name] });
    patched = measure(model.runWithHooks(clean, { patch: [{ name: target.name, value: step1.cache.get(target.name) }] }).logits);
  }
  return { clean: c, corrupted: k, patched, normalised: (patched - c) / (c - k), ...warning };
}
