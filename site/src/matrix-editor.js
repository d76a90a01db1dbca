// An editable matrix: a grid of number inputs. Calls onEdit(row, col, value) when the learner commits
// a number float32 can hold; anything else is refused where it was typed: the cell is marked (red,
// aria-invalid) and the message beside the grid says what is wrong and which number is still used, so
// the figures, which keep showing the accepted numbers, stay usable. onRefuse(message) tells the lesson.
import { el, formatNumber } from './dom.js';

const FLOAT32_MAX = 3.4028234663852886e38;
let editors = 0;  // for unique message ids

export function matrixEditor(name, matrix, rowLabels, onEdit, onRefuse = () => {}) {
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
            const kept = `the steps still use ${formatNumber(matrix.data[r * matrix.cols + c])} until you type a number here.`;
            if (e.target.value.trim() === '' || !Number.isFinite(value)) {
              refuse(e.target, `${name}[${r}][${c}] must be a number: ${kept}`);
              return;
            }
            // attnlab computes in float32: a larger number would become Infinity.
            if (Math.abs(value) > FLOAT32_MAX) {
              refuse(e.target, `${name}[${r}][${c}] = ${e.target.value} is too large for float32 (at most ±3.4e38): ${kept}`);
              return;
            }
            message.textContent = '';
            e.target.removeAttribute('aria-invalid');
            e.target.removeAttribute('aria-describedby');
            onEdit(r, c, value);
          },
        },
      });
      cells.push(el('td', {}, input));
    }
    body.push(el('tr', {}, el('th', { scope: 'row', text: rowLabels?.[r] ?? String(r) }), cells));
  }
  return el('div', { class: 'matrix-editor' },
    el('div', { class: 'table-wrap' }, el('table', { class: 'data' }, el('caption', { class: 'sr-only', text: `Edit ${name}` }), el('tbody', {}, body))),
    message);
}
