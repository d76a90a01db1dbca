// A residual-stream point's short name, as the logit lens labels its rows: "blocks.1.hook_resid_mid" →
// "1 resid_mid" (the block, then the point in it). Names outside blocks.* are kept as they are, less a
// leading "hook_". DOM-free, so Node code (tests, a page's build) can name points the same way.
export const pointLabel = (point) => String(point).replace(/^blocks\./, '').replace(/^hook_/, '').replace('.hook_', ' ');
