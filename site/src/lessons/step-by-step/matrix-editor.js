// An editable matrix: a grid of number inputs. Calls onEdit(row, col, value) when the learner commits
// a number float32 can hold; anything else is refused where it was typed: the cell is marked (red,
// aria-invalid) and the message beside the grid says what is wrong and which number is still used, so
// the figures, which keep showing the accepted numbers, stay usable. onRefuse(message) tells the lesson.
import { el, formatNumber } from '../../dom.js';

const FLOAT32_MAX = 3.4028234663852886e38;
let editors = 0;  // for unique message ids

export function matrixEditor(name, matrix, rowLabels, onEdit, onRefuse = () => {}) {
  const shown = { matrix, inputs: [] };  // the numbers the cells show (setMatrix changes them)
  const messageId = `matrix-editor-message-${++editors}`;
  const message = el('p', { class: 'cell-error', role: 'alert', id: messageId });
  const body = [];
  const refuse = (input, text) => {
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', messageId);
    message.textContent = text;
    onRefuse(text);
  };
  for (let r = 0; r < matrix.rows; r++) {
    const cells = [];
    for (let c = 0; c < matrix.cols; c++) {
      const input = el('input', {
        type: 'number', step: '0.01', value: matrix.data[r * matrix.cols + c].toFixed(2),
        'aria-label': `${name} row ${r}${rowLabels ? ` (${rowLabels[r]})` : ''} column ${c}`,
        on: {
          change: (e) => {
            const value = Number(e.target.value);
            const kept = `the steps still use ${formatNumber(shown.matrix.data[r * matrix.cols + c])} until you type a number here.`;
            if (e.target.value.trim() === '' || !Number.isFinite(value)) {
              refuse(e.target, `${name}[${r}][${c}] must be a number: ${kept}`);
              return;
            }
            // attnlab computes in float32: a larger number would become Infinity.
            if (Math.abs(value) > FLOAT32_MAX) {
              refuse(e.target, `${name}[${r}][${c}] = ${e.target.value} is too large for float32 (at most ±${FLOAT32_MAX.toExponential(1).replace('+', '')}): ${kept}`);
              return;
            }
            message.textContent = '';
            e.target.removeAttribute('aria-invalid');
            e.target.removeAttribute('aria-describedby');
            onEdit(r, c, value);
          },
        },
      });
      shown.inputs.push(input);
      cells.push(el('td', {}, input));
    }
    body.push(el('tr', {}, el('th', { scope: 'row', text: rowLabels?.[r] ?? String(r) }), cells));
  }
  const node = el('div', { class: 'matrix-editor' },
    el('div', { class: 'table-wrap' }, el('table', { class: 'data' }, el('caption', { class: 'sr-only', text: `Edit ${name}` }), el('tbody', {}, body))),
    message);
  editorsShown.set(node, shown);
  return node;
}
const editorsShown = new WeakMap();  // an editor → the matrix it shows and its cells, row by row

// New numbers of the same shape into an editor, in place: the learner's focus stays in the cell it is
// in (an edit, then Tab to the next cell, rebuilt the grid and dropped it). A cell marked refused
// keeps what the learner typed, to fix it.
export function setMatrix(node, matrix) {
  const shown = editorsShown.get(node);
  shown.matrix = matrix;
  shown.inputs.forEach((input, i) => {
    const text = matrix.data[i].toFixed(2);
    if (input.getAttribute('aria-invalid') !== 'true' && Number(input.value).toFixed(2) !== text) input.value = text;
  });
}
