// The shadow DOM that <attn-heatmap> and <pe-plot> share: a <figure> with its caption, a body for
// the picture, and the SVG / PNG export buttons.
import { exportTools } from './export.js';
import { adoptStyles } from './styles.js';

// → { figure, caption, body }; `kind` names the picture in the buttons' labels ("heatmap", "plot").
export function figureShell(element, css, kind, bodyClass) {
  const root = element.attachShadow({ mode: 'open' });
  const figure = document.createElement('figure');
  const caption = document.createElement('figcaption');
  const body = document.createElement('div');
  body.className = bodyClass;
  figure.append(caption, body, exportTools(element, kind));
  adoptStyles(root, css);
  root.append(figure);
  return { figure, caption, body };
}
