// The patching lesson's long computations, DOM-free, on a model of the package: the two activation-patching
// grids (and attribution patching's estimates of them), path-patching cells and the "taken away" numbers.
// sweep-worker.js runs them beside the page (so the page's thread holds no task of a sweep: issue 51); the page
// runs them itself only for a model the worker cannot load (a kept model of the learner's), one cell per task.
// Each checks its signal between cells.
//   const ops = patchingOps(model);
//   const { resid, heads, estimates } = await ops.grids({ clean, corrupted, metric }, { signal, progress });

// Resolves after a turn of the thread's event loop (a stop message, a click), or rejects with the signal's reason.
const turn = (signal) => new Promise((resolve, reject) => setTimeout(() => (signal?.aborted ? reject(signal.reason) : resolve())));

// (logit difference of the clean run with these heads' z from the corrupted run − clean) / (clean − corrupted):
// 0 nothing lost, −1 all of the way to the corrupted run. measures: [clean, corrupted] logit differences.
export function takenAway(model, { clean, corrupted, metric, heads, measures: [cleanM, corruptedM] }) {
  const names = [...new Set(heads.map((x) => `blocks.${x.layer}.attn.hook_z`))];
  const { cache } = model.runWithCache(corrupted, { names });
  const { logits } = model.runWithHooks(clean, { patch: heads.map((x) => ({ name: `blocks.${x.layer}.attn.hook_z`, from: cache, heads: [x.head] })) });
  const last = (logits.rows - 1) * logits.cols;
  return (logits.data[last + metric.target] - logits.data[last + metric.baseline] - cleanM) / (cleanM - corruptedM);
}

export function patchingOps(model) {
  return {
    // Both grids: resid_pre by position, then each head's z; a pair patching cannot read comes with its warning.
    async grids({ clean, corrupted, metric }, { signal, progress = () => {} } = {}) {
      const options = { metric, signal, allowUnfavourable: true };
      const onProgress = (what) => ({ done, total }) => progress(`${what}, layer ${done} of ${total}`);
      const resid = await model.activationPatching(clean, corrupted, { ...options, what: 'resid_pre', onProgress: onProgress('the residual stream') });
      const heads = await model.activationPatching(clean, corrupted, { ...options, what: 'z', per: 'head', onProgress: onProgress('each head') });
      // Attribution patching's estimates of the same two grids (a GPT's: a Llama's core has no backward pass),
      // one forward and one backward each.
      if (typeof model.attributionPatching !== 'function') return { resid, heads };
      progress('the estimates from one backward pass');
      const estimate = async (what, per) => {
        await turn(signal);
        return model.attributionPatching(clean, corrupted, { metric, allowUnfavourable: true, what, per });
      };
      return { resid, heads, estimates: { resid: await estimate('resid_pre', 'position'), heads: await estimate('z', 'head') } };
    },

    // cells: [{ layer, head, input }] (one receiver each) → their normalised effects, in order; one cell per turn.
    async path({ clean, corrupted, metric, sender, cells, numLayers }, { signal, progress = () => {} } = {}) {
      const values = [];
      for (const { layer, head, input } of cells) {
        if (values.length === 0 || cells[values.length - 1].layer !== layer) progress(`path patching, receivers in layer ${layer} of ${numLayers - 1}`);
        await turn(signal);
        values.push(model.pathPatching(clean, corrupted, { sender, receivers: [{ layer, head, input }], metric }).normalised);
      }
      return values;
    },

    // One head's attention on each of the runs (ids arrays): [Matrix, …].
    async attention({ runs, layer, head }) {
      return runs.map((ids) => model.forward(ids, { attention: true, logits: 'none' }).attention[layer][head]);
    },

    // The sender alone, then with a second head, taken away: [lost, lostBoth].
    async takenAway({ clean, corrupted, metric, heads, measures }, { signal } = {}) {
      const out = [];
      for (const set of heads) {
        await turn(signal);
        out.push(takenAway(model, { clean, corrupted, metric, heads: set, measures }));
      }
      return out;
    },
  };
}
