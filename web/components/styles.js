// CSS shared by the components' shadow roots.
import { FONT_FAMILY } from './measure.js';
import { THEME_CSS } from './theme.js';

// No fixed text colour: the host inherits the page's `color` (theme.js), so a dark page's text
// reaches captions, labels and buttons alike.
export const BASE_CSS = `${THEME_CSS}
:host { display: block; font-family: ${FONT_FAMILY}; min-width: 0; }
:host([hidden]) { display: none; }
/* As wide as the picture (so the export buttons sit at its edge), never wider than the container. */
figure { margin: 0; width: fit-content; max-width: 100%; }
/* Wraps at the picture's width instead of widening the figure (width 0, then stretched to 100%). */
figcaption { font-size: 0.95rem; font-weight: 600; margin: 0 0 0.35rem; overflow-wrap: anywhere; width: 0; min-width: 100%; }
figcaption:empty { display: none; }
svg { display: block; max-width: 100%; height: auto; }
.sr-only {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
/* Tinted with the text colour: a light button on a light page, a dark one on a dark page. */
button {
  font: inherit; font-size: 0.8rem; line-height: 1.2; color: inherit;
  background: color-mix(in srgb, currentColor 7%, transparent);
  border: 1px solid var(--attnlab-ink-muted); border-radius: 4px; padding: 0.2rem 0.55rem; cursor: pointer;
}
button:hover:not(:disabled) { background: color-mix(in srgb, currentColor 14%, transparent); }
button:focus-visible { outline: 2px solid var(--attnlab-focus, currentColor); outline-offset: 2px; }
button:disabled { color: color-mix(in srgb, currentColor 55%, transparent); border-color: var(--attnlab-ink-grid); cursor: default; }
.tools { display: flex; gap: 0.35rem; justify-content: flex-end; margin-top: 0.25rem; }
:host([no-export]) .tools { display: none; }
/* A setting the element cannot draw honestly (figure.js): its message instead of the picture. */
.problem { margin: 0.25rem 0; padding: 0.4rem 0.6rem; border: 1px solid #f1b5ae; border-radius: 4px;
  background: #fdecea; color: #7a1a12; font-size: 0.9rem; overflow-wrap: anywhere; }
`;

// Styles a shadow root with BASE_CSS plus the component's own rules, as a constructed stylesheet
// shared by every instance. Constructed sheets are not inline styles, so pages under a strict
// Content-Security-Policy (style-src 'self', no 'unsafe-inline', no hashes) style the components.
// Engines without adoptedStyleSheets (Safari < 16.4) get a <style> element instead.
const sheets = new Map();

export function adoptStyles(root, css) {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!sheets.has(css)) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(BASE_CSS + css);
      sheets.set(css, sheet);
    }
    root.adoptedStyleSheets = [sheets.get(css)];
    return;
  }
  const style = document.createElement('style');
  style.textContent = BASE_CSS + css;
  root.append(style);
}
