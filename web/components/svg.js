// Creating SVG nodes: the components build their pictures with the DOM (never innerHTML), so a
// token such as "<img src=x onerror=…>" can only ever be text.
export const SVG_NS = 'http://www.w3.org/2000/svg';

// svg('rect', { x: 0, width: 10 }, parent) → the new element (appended to parent when given).
export function svg(tag, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttributes(node, attributes);
  if (parent) parent.append(node);
  return node;
}

export function setAttributes(node, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  return node;
}

// A <text> holding `content` as a text node.
export function svgText(content, attributes, parent) {
  const node = svg('text', attributes, parent);
  node.textContent = content;
  return node;
}

// Shortest decimal form for SVG coordinates: keeps the markup (and the exported file) small.
export const px = (value) => Math.round(value * 100) / 100;
