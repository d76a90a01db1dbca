// A Try-this exercise's answer — the figures and readouts that would give it away — kept out of sight until the
// learner has checked an answer (issue 51, item 6): in a hidden wrapper, so it is neither seen nor read by a
// screen reader, with a line in its place saying what Check will show. reveal() shows it for good (the figures
// are there to be read once the learner has answered); a page calls it when its Check gives a verdict, not when
// Check only says what is missing (a sweep still running, no induction head yet).
import { el } from './dom.js';

// → { nodes: [the line, the wrapper] (placed where the answer goes), reveal() }
export function answerAfterCheck(what, ...answer) {
  const note = el('p', { class: 'explain try-answer-note', text: `Answer the Try-this and press Check to see ${what}.` });
  const wrapper = el('div', { class: 'try-answer', hidden: true }, ...answer);
  return {
    nodes: [note, wrapper],
    reveal() {
      note.hidden = true;
      wrapper.hidden = false;
    },
  };
}
