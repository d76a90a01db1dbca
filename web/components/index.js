// attnlab/components: <attn-heatmap>, <pe-plot> and <attn-stepper>. Importing this module registers
// them. They only draw the matrices they are given (they never load the wasm package), so a
// tutorial can show any matrix, from attnlab or elsewhere.
// The elements create each other by tag name (<pe-plot mode=heatmap> holds an <attn-heatmap>), so
// whichever class owns a tag — even another copy of this bundle — is the one used.
import { defineElements } from './base.js';
import { AttnHeatmap } from './heatmap.js';
import { PePlot } from './pe-plot.js';
import { AttnStepper } from './stepper.js';

defineElements({ 'attn-heatmap': AttnHeatmap, 'pe-plot': PePlot, 'attn-stepper': AttnStepper });

export { AttnHeatmap, PePlot, AttnStepper };
