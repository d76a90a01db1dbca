// Text widths for layout, measured with a canvas in the font the SVG uses: the layout is computed
// before anything is attached to the page, so getComputedTextLength() is not available yet.
export const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif';

let context;
let contextFont = '';
// Widths are asked for again and again (every heatmap of a page shares its token labels, and the
// layout tries a few font sizes), and setting a canvas font is slow: remember them.
const widths = new Map();
const MAX_REMEMBERED = 20000;

export function textWidth(text, size, weight = 400) {
  const font = `${weight} ${size}px ${FONT_FAMILY}`;
  const key = `${font}\u0000${text}`;
  const known = widths.get(key);
  if (known !== undefined) return known;
  context ??= globalThis.document?.createElement('canvas').getContext('2d') ?? null;
  if (!context) return text.length * size * 0.6;
  if (font !== contextFont) context.font = contextFont = font;
  const width = context.measureText(text).width;
  if (widths.size >= MAX_REMEMBERED) widths.clear();
  widths.set(key, width);
  return width;
}

// `text` shortened with an ellipsis until it is at most maxWidth wide (full text stays in tooltips).
// Binary search over whole characters (code points, so an emoji is never cut in half): a 10,000-
// character label takes ~14 measurements, not 10,000, and only short prefixes reach the cache.
export function fitText(text, size, maxWidth) {
  if (textWidth(text, size) <= maxWidth) return text;
  const characters = Array.from(text);
  let fits = 1; // the longest prefix known to fit (one character at least, as before)
  let tooLong = characters.length;
  while (tooLong - fits > 1) {
    const middle = (fits + tooLong) >> 1;
    if (textWidth(`${characters.slice(0, middle).join('')}…`, size) <= maxWidth) fits = middle;
    else tooLong = middle;
  }
  return `${characters.slice(0, fits).join('')}…`;
}
