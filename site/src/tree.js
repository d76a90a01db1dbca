// Page parts described as trees, [tag, attributes, ...children] with text as strings: the formulas KaTeX
// typesets at build time (site/formula-plugin.js) and a lesson's first view (lesson-frame.js). The
// browser builds a tree with createElement (buildTree); the build also writes it into the lesson's HTML
// (treeHtml, site/prerender-plugin.js), so the first view is on screen before any script has arrived.
// There are no style attributes: the site's policy refuses them (csp.js), so KaTeX's inline styles
// become classes of a generated stylesheet (formula-plugin.js).
const NAMESPACES = { svg: 'http://www.w3.org/2000/svg', math: 'http://www.w3.org/1998/Math/MathML' };

// A tree → DOM nodes (<svg> and <math> subtrees in their namespaces).
export function buildTree(node, namespace = null) {
  if (typeof node === 'string') return document.createTextNode(node);
  const [tag, attributes, ...children] = node;
  const ns = NAMESPACES[tag] ?? namespace;
  const element = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children.map((child) => buildTree(child, ns)));
  return element;
}

const VOID = new Set(['br', 'hr', 'img', 'input', 'meta', 'link', 'wbr']);
const escapeText = (text) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const escapeAttribute = (text) => escapeText(text).replaceAll('"', '&quot;');

// A tree → HTML, which the parser turns back into the nodes buildTree makes.
export function treeHtml(node) {
  if (typeof node === 'string') return escapeText(node);
  const [tag, attributes, ...children] = node;
  const open = `<${tag}${Object.entries(attributes).map(([k, v]) => ` ${k}="${escapeAttribute(String(v))}"`).join('')}>`;
  return VOID.has(tag) ? open : `${open}${children.map(treeHtml).join('')}</${tag}>`;
}
