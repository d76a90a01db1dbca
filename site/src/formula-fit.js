// A lesson's formula is written to fit a phone's column (its TeX breaks into lines with aligned or
// gathered), but a learner who enlarges the text can still make it wider than the column. Then, and
// only then, it becomes a scroll region a keyboard can reach: focusable, named, and with a visible cue
// (styles.css, .formula[data-scrolls]) — a formula that fits stays out of the tab order.
const LABEL = 'Formula, wider than the screen: scroll it sideways';

function mark(formula) {
  const scrolls = formula.scrollWidth > formula.clientWidth + 1;
  if (scrolls === formula.hasAttribute('data-scrolls')) return;
  if (scrolls) {
    formula.setAttribute('data-scrolls', '');
    formula.setAttribute('tabindex', '0');
    formula.setAttribute('role', 'region');
    formula.setAttribute('aria-label', LABEL);
  } else {
    for (const name of ['data-scrolls', 'tabindex', 'role', 'aria-label']) formula.removeAttribute(name);
  }
}

// Watches every .formula under root: its width changes with the window, its content's with the text
// size and when KaTeX's fonts arrive.
export function watchFormulaWidth(root) {
  const formulas = [...root.querySelectorAll('.formula')];
  if (!formulas.length) return;
  const check = () => formulas.forEach(mark);
  const observer = new ResizeObserver(check);
  for (const formula of formulas) {
    observer.observe(formula);
    const content = formula.querySelector('.katex-html');
    if (content) observer.observe(content);
  }
  document.fonts?.ready.then(check);
  check();
}
