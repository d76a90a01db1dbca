// An editable matrix: a grid of number inputs. Calls onEdit(row, col, value) when the learner commits
// a number float32 can hold; anything else is refused in place with a visible message, and
// onRefuse(message) lets the lesson hide the figures that no longer match what is typed.
import { el } from './dom.js';

const FLOAT32_MAX = 3.4028234663852886e38;

export function matrixEditor(name, matrix, rowLabels, onEdit, onRefuse = () => {}) {
  const message = el('p', { class: 'field-hint', role: 'status' });
  const body = [];
  for (let r = 0; r < matrix.rows; r++) {
    const cells = [];
    for (let c = 0; c < matrix.cols; c++) {
      const input = el('input', {
        type: 'number', step: '0.01', value: matrix.data[r * matrix.cols + c].toFixed(2),
        'aria-label': `${name} row ${r}${rowLabels ? ` (${rowLabels[r]})` : ''} column ${c}`,
        on: {
          change: (e) => {
            const value = Number(e.target.value);
            if (e.target.value.trim() === '' || !Number.isFinite(value)) {
              message.textContent = `${name}[${r}][${c}] must be a number.`;
              onRefuse(message.textContent);
              return;
            }
            // attnlab computes in float32: a larger number would become Infinity.
            if (Math.abs(value) > FLOAT32_MAX) {
              message.textContent = `${name}[${r}][${c}] = ${e.target.value} is too large for float32 (at most ±3.4e38).`;
              onRefuse(message.textContent);
              return;
            }
            message.textContent = '';
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
