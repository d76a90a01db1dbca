// The shadow DOM that <attn-heatmap> and <pe-plot> share: a <figure> with its caption, a body for
// the picture, and the SVG / PNG export buttons.
import { AttnLabError } from '../lib/errors.js';
import { exportTools } from './export.js';
import { adoptStyles } from './styles.js';

// → { figure, caption, body, report }; `kind` names the picture in the buttons' labels ("heatmap",
// "plot"). report(message) shows a setting the element cannot draw honestly (labels of the wrong
// length, an unknown palette, …) in place of the picture, and logs it once with console.error as an
// AttnLabError; report(null) brings the picture back. Nothing is silently replaced by a default.
export function figureShell(element, css, kind, bodyClass) {
  const root = element.attachShadow({ mode: 'open' });
  const figure = document.createElement('figure');
  const caption = document.createElement('figcaption');
  const body = document.createElement('div');
  body.className = bodyClass;
  const problem = document.createElement('p');
  problem.className = 'problem';
  problem.setAttribute('role', 'alert');
  problem.hidden = true;
  const tools = exportTools(element, kind);
  figure.append(caption, problem, body, tools);
  adoptStyles(root, css);
  root.append(figure);
  let reported = '';
  const report = (message) => {
    problem.hidden = !message;
    problem.textContent = message ?? '';
    body.hidden = tools.hidden = Boolean(message);
    if (message && message !== reported) console.error(new AttnLabError(message));
    reported = message ?? '';
  };
  return { figure, caption, body, report };
}
