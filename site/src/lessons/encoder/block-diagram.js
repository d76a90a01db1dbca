// The encoder layer as a block diagram beside its trace: one box per part of the layer (input, norm,
// attention, residual add, feed-forward, output) in the order the trace visits them, the box of the
// step on screen highlighted and named with that step ("Multi-head attention — Head 2: Scale"), so a
// learner sees where in the layer each of the 40 steps happens. A box is a button: it jumps to the
// first step of that part.
import { el } from '../../dom.js';

const PART_NAMES = {
  input: 'Input X',
  attn: 'Multi-head attention',
  residual1: 'Add: x + attention',
  norm1: 'Norm',
  ffn: 'Feed-forward (Linear, GELU, Linear)',
  residual2: 'Add: h + feed-forward',
  norm2: 'Norm',
  output: 'Output',
};

// A trace step's part: the first segment of its id ("attn.head0.scores" → "attn").
const partOf = (step) => step.id.split('.')[0];

// → { node, show(steps, index) }; onPick(index) when a box is chosen.
export function blockDiagram(onPick) {
  const list = el('ol', { class: 'block-diagram', 'aria-label': 'The layer, part by part' });
  let parts = [];
  return {
    node: list,
    show(steps, index) {
      const order = [...new Set(steps.map(partOf))];
      if (order.join() !== parts.map((p) => p.part).join()) {
        parts = order.map((part) => {
          const first = steps.findIndex((s) => partOf(s) === part);
          const detail = el('span', { class: 'block-detail' });
          const button = el('button', { type: 'button', on: { click: () => onPick(first) } },
            el('span', { class: 'block-name', text: PART_NAMES[part] ?? part }), detail);
          return { part, first, detail, item: el('li', {}, button), button };
        });
        list.replaceChildren(...parts.map((p) => p.item));
      } else {
        parts.forEach((p) => { p.first = steps.findIndex((s) => partOf(s) === p.part); });
      }
      const current = steps[index] ? partOf(steps[index]) : null;
      for (const p of parts) {
        const active = p.part === current;
        p.item.classList.toggle('active', active);
        if (active) p.button.setAttribute('aria-current', 'step');
        else p.button.removeAttribute('aria-current');
        const count = steps.filter((s) => partOf(s) === p.part).length;
        const head = /\.head(\d+)\./.exec(steps[index]?.id ?? '');
        const where = head && !steps[index].title.startsWith('Head') ? `head ${head[1]}, ` : '';
        p.detail.textContent = active && count > 1 ? `step ${index - p.first + 1} of ${count}: ${where}${steps[index].title}` : '';
      }
    },
  };
}
