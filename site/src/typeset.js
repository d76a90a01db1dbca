// KaTeX with its stylesheet, imported on demand by page.js once the lesson is interactive.
import 'katex/dist/katex.min.css';
import katex from 'katex';

export function typeset(tex, node) {
  katex.render(tex, node, { displayMode: true, throwOnError: false, output: 'htmlAndMathml' });
}
