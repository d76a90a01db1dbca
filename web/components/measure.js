// Text widths for layout, measured with a canvas in the font the SVG uses: the layout is computed
// before anything is attached to the page, so getComputedTextLength() is not available yet.
export const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif';

let context;

export function textWidth(text, size, weight = 400) {
  context ??= globalThis.document?.createElement('canvas').getContext('2d') ?? null;
  if (!context) return text.length * size * 0.6;
  context.font = `${weight} ${size}px ${FONT_FAMILY}`;
  return context.measureText(text).width;
}

// `text` shortened with an ellipsis until it is at most maxWidth wide (full text stays in tooltips).
export function fitText(text, size, maxWidth) {
  if (textWidth(text, size) <= maxWidth) return text;
  let end = text.length;
  while (end > 1 && textWidth(`${text.slice(0, end)}…`, size) > maxWidth) end--;
  return `${text.slice(0, end)}…`;
}
