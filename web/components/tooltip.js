// A small tooltip inside a positioned frame: beside the pointer, or above (else below) a box such as
// the cell the keyboard is on. It stays within the frame's width, so it never makes a phone scroll
// sideways. aria-hidden: what it says is also in the element that owns it (a cell's label).
import { px } from './svg.js';

export const TOOLTIP_CSS = `
.tooltip {
  position: absolute; left: 0; top: 0; z-index: 2; pointer-events: none; max-width: min(20rem, 90%);
  background: #1f2328; color: #fff; font-size: 0.8rem; line-height: 1.35; padding: 0.3rem 0.5rem;
  border-radius: 4px; box-shadow: 0 2px 6px rgb(0 0 0 / 0.25); overflow-wrap: anywhere;
}
.tooltip[hidden] { display: none; }
.tooltip .value { display: block; font-weight: 700; font-variant-numeric: tabular-nums; }
`;

export class Tooltip {
  element = document.createElement('div');

  constructor() {
    this.element.className = 'tooltip';
    this.element.setAttribute('part', 'tooltip');
    this.element.hidden = true;
    this.element.setAttribute('aria-hidden', 'true');
  }

  // value: the bold first line; detail: the second. at: a pointer event, or a DOMRect to sit by.
  show(value, detail, at) {
    const tip = this.element;
    const first = document.createElement('span');
    first.className = 'value';
    first.textContent = value;
    const second = document.createElement('span');
    second.textContent = detail;
    tip.replaceChildren(first, second);
    tip.hidden = false;
    const frame = tip.offsetParent?.getBoundingClientRect() ?? { left: 0, top: 0, width: 0, height: 0 };
    const { width, height } = tip.getBoundingClientRect();
    let left;
    let top;
    if ('clientX' in at) {
      left = at.clientX - frame.left + 14;
      top = at.clientY - frame.top + 16;
      if (top + height > frame.height) top = at.clientY - frame.top - height - 10;
    } else {
      left = at.left - frame.left + at.width / 2 - width / 2;
      top = at.top - frame.top - height - 6;
      if (top < 0) top = at.bottom - frame.top + 6;
    }
    left = Math.max(0, Math.min(left, frame.width - width));
    tip.style.transform = `translate(${px(left)}px, ${px(top)}px)`;
  }

  hide() {
    this.element.hidden = true;
  }
}
