// A hook point's short name in the logit lens lesson ("blocks.1.hook_resid_mid" → "1 resid_mid"): the
// package's own, which labels <attn-logit-lens>'s rows, so the lesson's chart, exercise and grid agree.
export { pointLabel } from '../../web/components/lens-points.js';
