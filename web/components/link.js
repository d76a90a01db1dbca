// Linked views: <attn-heatmap>, <attn-model-view>, <attn-head-view> and <attn-token-colors> with the same
// `link` attribute, in one document (or one shadow root), show what the reader points at in any of
// them — one query's attention in every head and every kind of view at once, as BertViz's and
// CircuitsVis's views do — with no code on the page. Three things travel in a group:
//  - a hovered query row ({ kind: 'hover', row }, row null when the hover ends), shown while it lasts;
//  - a picked query row ({ kind: 'pick', row }: a click, a tap, a key), which every view keeps as its
//    `query`, so the views still agree after the pointer and the focus have left (a heatmap, which has
//    no query, keeps an outline);
//  - a picked head ({ kind: 'head', layer, head }), shown by the views that hold that very head.
// A view tells its peers and does not re-send what it is told, so a message never loops. Events
// (row-hover, head-select) fire only on the view the reader used: a page listening on the document
// hears each action once, not once per linked view.
//
// Peers receive messages through one method under a registered symbol, not a public name: a page has
// no reason to call it, and a second copy of the bundle (its own classes) still links with this one.
export const LINKED = Symbol.for('attnlab.linked');

// The `link` property and the `query` property of the views that have one (for attributeProperties):
// both reflect their attributes, so `view.query = 2` and query="2" are the same setting.
export const LINK_PROPERTY = { attr: 'link', fallback: null };
// A query attribute that is not a whole number reads as null; render() reports it (indexProblem).
export const QUERY_PROPERTY = { attr: 'query', fallback: null, parse: (text) => (/^\d+$/.test(text) ? Number(text) : null) };

export const isLinked = (element) => Boolean(element.getAttribute('link'));

// The other members of element's group.
function peers(element) {
  const group = element.getAttribute('link');
  if (!group || !element.isConnected) return [];
  return [...element.getRootNode().querySelectorAll('[link]')]
    .filter((other) => other !== element && other.getAttribute('link') === group && typeof other[LINKED] === 'function');
}

export function tellLinked(element, message) {
  for (const peer of peers(element)) peer[LINKED](message);
}

// The reader's pointer is over query row `row` (null: it left) of head { layer, head } (null where the
// view does not know them): row-hover on the element, the row shown across its group.
export function hoverRow(element, row, { layer = null, head = null } = {}) {
  const detail = row === null ? { row, layer: null, head: null } : { row, layer, head };
  element.dispatchEvent(new CustomEvent('row-hover', { detail, bubbles: true, composed: true }));
  tellLinked(element, { kind: 'hover', row });
}

// A view with a `query` follows a linked pick: row null clears it; a row beyond its n tokens (a view of
// a shorter text) clears it too rather than keep a pick the group no longer has.
export function followPick(element, row, n) {
  const text = row !== null && row < n ? String(row) : null;
  if (element.getAttribute('query') === text) return;
  if (text === null) element.removeAttribute('query');
  else element.setAttribute('query', text);
}
