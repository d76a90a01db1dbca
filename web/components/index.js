// attnlab/components: <attn-heatmap>, <pe-plot>, <attn-stepper>, the attention views
// <attn-model-view>, <attn-head-view> and <attn-token-colors>, and the interpretability figures
// <attn-logit-lens> and <attn-attribution>. Importing this module registers them.
// They only draw the matrices they are given (they never load the wasm package), so a tutorial can
// show any matrix, from attnlab or elsewhere.
// The elements create each other by tag name (<pe-plot mode=heatmap> holds an <attn-heatmap>), so
// whichever class owns a tag — even another copy of this bundle — is the one used.
import { AttnAttribution } from './attribution.js';
import { defineElements } from './base.js';
import { AttnHeadView } from './head-view.js';
import { AttnHeatmap } from './heatmap.js';
import { pointLabel } from './lens-points.js';
import { AttnLogitLens } from './logit-lens.js';
import { AttnModelView } from './model-view.js';
import { PePlot } from './pe-plot.js';
import { AttnStepper } from './stepper.js';
import { AttnTokenColors } from './token-colors.js';

defineElements({
  'attn-heatmap': AttnHeatmap, 'pe-plot': PePlot, 'attn-stepper': AttnStepper,
  'attn-model-view': AttnModelView, 'attn-head-view': AttnHeadView, 'attn-token-colors': AttnTokenColors,
  'attn-logit-lens': AttnLogitLens, 'attn-attribution': AttnAttribution,
});

export { AttnHeatmap, PePlot, AttnStepper, AttnModelView, AttnHeadView, AttnTokenColors, AttnLogitLens, AttnAttribution, pointLabel };
