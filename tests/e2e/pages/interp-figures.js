// The interpretability figures' test page: the components only, no wasm (they draw what they are
// given). The test sets each element's data; the elements' events are collected on window.seen.
import '/web/dist/components.js';

window.seen = [];
for (const type of ['position-change', 'item-select']) {
  document.addEventListener(type, (event) => window.seen.push({ type, id: event.target.id, ...event.detail }));
}
await customElements.whenDefined('attn-logit-lens');
document.body.dataset.done = 'true';
