// A hook point's short name in the logit lens lesson: "blocks.1.hook_resid_mid" → "1 resid_mid".
export const pointLabel = (point) => point.replace(/^blocks\./, '').replace('.hook_', ' ');
