// The shadow DOM that the figures share (<attn-heatmap>, <pe-plot> and the attention views): a
// <figure> with its caption, a body for the picture, and the SVG / PNG export buttons.
import { AttnLabError } from '../lib/errors.js';
import { exportTools } from './export.js';
import { adoptStyles } from './styles.js';

// → { figure, caption, body, report }; `kind` names the picture in the buttons' labels ("heatmap",
// "plot"; null: a view with no picture file of its own, and no buttons). report(message) shows a
// setting the element cannot draw honestly (labels of the wrong length, an unknown palette, …) in
// place of the picture, and logs it once with console.error as an
// AttnLabError; report(null) brings the picture back. Nothing is silently replaced by a default.
export function figureShell(element, css, kind, bodyClass) {
  const root = element.attachShadow({ mode: 'open' });
  const figure = document.createElement('figure');
  const caption = document.createElement('figcaption');
  const body = document.createElement('div');
  body.className = bodyClass;
  // Parts a page can style from outside (::part(caption), …), alongside the theme's custom properties.
  figure.setAttribute('part', 'figure');
  caption.setAttribute('part', 'caption');
  const problem = document.createElement('p');
  problem.className = 'problem';
  problem.setAttribute('part', 'problem');
  problem.setAttribute('role', 'alert');
  problem.hidden = true;
  const tools = kind ? exportTools(element, kind) : null;
  figure.append(...[caption, problem, body, tools].filter(Boolean));
  adoptStyles(root, css);
  root.append(figure);
  let reported = '';
  const report = (message) => {
    problem.hidden = !message;
    problem.textContent = message ?? '';
    body.hidden = Boolean(message);
    if (tools) tools.hidden = Boolean(message);
    if (message && message !== reported) console.error(new AttnLabError(message));
    reported = message ?? '';
  };
  return { figure, caption, body, report };
}
