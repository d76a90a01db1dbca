// Lesson 2: softmax(QKᵀ/√d_k)V one step at a time, on real numbers the learner can edit. The steps
// are the core's trace: the projections from MultiHeadAttention.trace (one head, no bias), then the
// attention itself from traceAttention on Q, K, V — so an edited Q flows through the real computation.
import { el, field, formatNumber, isolated, select, shape } from '../../dom.js';
import { matrixEditor, setMatrix } from './matrix-editor.js';
import { lessonPage } from '../../page.js';
import { panel, rowOf, seedField, sentenceInput, tokenChips, tokensField, tokensOf } from '../../views.js';
import pytorchSource from './program.py?raw';
import { applyEdits, D_MODEL, editedInputs, EDITABLE, editsInShape, FALLBACK, formatEdits, MAX_TOKENS, parseEdits, PROGRAM } from './settings.js';

const SHOWN = 2;  // decimals of q and k in a score's sum of products

// How to pick a score cell, for the screen in hand: a touch screen has no pointer to hover and no Tab key.
const HOW_TO_PICK_A_CELL = () => (matchMedia('(hover: none) and (pointer: coarse)').matches
  ? 'Tap a cell of the scores to see its sum of products.'
  : 'Point at a cell of the scores, or focus it (Tab, then the arrow keys), to see its sum of products.');

lessonPage({
  slug: 'step-by-step',
  intro: [
    'Each token of the sentence is a row of X (d_model = 8 here). Three learned matrices project X to queries, ' +
      'keys and values; every query is compared with every key, the scores are scaled, masked, turned into ' +
      'weights by a softmax, and the weights mix the values. Each W is stored as PyTorch stores an nn.Linear’s weight, ' +
      'one row per output (out × in), so the projection is X·Wᵀ; every lesson writes it that way.',
    'Walk the steps with Next/Prev or the ← → keys (anywhere on the page except in a text box or inside a ' +
      'figure, where the arrows move between cells). On the scores step, focus a cell to see it as a sum of ' +
      'products. Change any number of X, W_q, W_k, W_v, Q, K or V and everything after it is recomputed.',
  ],
  formula: String.raw`\begin{gathered}Q = XW_q^\top,\quad K = XW_k^\top,\quad V = XW_v^\top\\ \operatorname{Attention}(Q,K,V) = \operatorname{softmax}\!\Big(\frac{QK^\top}{\sqrt{d_k}}\Big)V\end{gathered}`,
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: 'const front = mha.trace(x);              // X, W_q/W_k/W_v, Q, K, V\n' +
    'const back = lab.traceAttention(q, k, v, { causal });  // scores … output',
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    let inputsKey = '';
    let mha = null;
    let initial = null;  // the seeded weights, kept so that "Undo my edits" can restore them
    const stepper = document.createElement('attn-stepper');
    const chips = tokenChips([]);
    const editor = el('div', { class: 'inputs' });  // stays on screen after a refused value, to fix it
    const dot = el('div', { class: 'explain', hidden: true, 'aria-live': 'polite' });
    let steps = [];
    let tokens = [];

    const sentence = sentenceInput(`Sentence (up to ${MAX_TOKENS} tokens)`, state.sentence, (value) => ctx.set({ sentence: value }));
    root.append(
      el('div', { class: 'controls' }, sentence, tokensField(ctx),
        seedField(state.seed, (seed) => ctx.set({ seed })),
        field('Mask', select([['none', 'none'], ['causal', 'causal (torch.tril)']], state.mask, (mask) => ctx.set({ mask }))),
        el('button', { type: 'button', text: 'Undo my edits', on: { click: () => ctx.set({ edits: '' }) } })),
      chips, stepper, dot, editor);

    // ← → walk the steps from anywhere on the page, as the intro says: not while typing, and not inside
    // another widget that uses the arrows itself (a heatmap's cells, a select, a slider).
    document.addEventListener('keydown', (event) => {
      if (event.defaultPrevented || !['ArrowLeft', 'ArrowRight'].includes(event.key)) return;
      const path = event.composedPath();
      if (path.includes(stepper)) return;  // the stepper handles its own keys
      const uses = (node) => node instanceof Element && (['INPUT', 'TEXTAREA', 'SELECT'].includes(node.tagName) ||
        node.isContentEditable || ['grid', 'listbox', 'slider', 'tablist', 'radiogroup'].includes(node.getAttribute('role')) ||
        node.tagName.includes('-'));
      if (path.some(uses)) return;
      stepper.dispatchEvent(new KeyboardEvent('keydown', { key: event.key }));
      event.preventDefault();
    });
    stepper.addEventListener('step-change', (e) => {
      ctx.remember({ step: e.detail.index });
      showEditor();
    });
    // A focused or hovered score cell, explained as the sum of products it is.
    const explainCell = (e) => {
      const step = steps[stepper.index];
      const origin = e.composedPath()[0];  // the heatmap that was focused: only the scores are explained
      if (step?.id !== 'scores' || !e.detail || !String(origin?.caption ?? '').startsWith('scores')) return;
      const { row, col, value } = e.detail;
      const q = rowOf(step.tensors.Q, row);
      const k = rowOf(step.tensors.K, col);
      const terms = q.map((x, t) => `${formatNumber(x, SHOWN)}×${formatNumber(k[t], SHOWN)}`).join(' + ');
      dot.hidden = false;
      // q and k are shown to 2 decimals, the score to 4 from their every digit: the rounded products add
      // to a slightly different number, so the sentence says which is which.
      dot.textContent = `score[${row}][${col}] = q_${row}·k_${col} (“${isolated(tokens[row])}” asks, “${isolated(tokens[col])}” answers) = ${terms} = ` +
        `${formatNumber(value, 4)}. (q and k are shown rounded to ${SHOWN} decimals; the score uses their full values, so the rounded ` +
        'products can add up to a slightly different number.)';
    };
    stepper.addEventListener('cell-focus', explainCell);
    stepper.addEventListener('cell-hover', explainCell);

    // The editors on screen: rebuilt only for another step or other shapes or tokens; new numbers go
    // into the same cells (setMatrix), so the learner's focus stays where it is after an edit.
    let editorsShown = { key: null, editors: [] };
    function showEditor() {
      const step = steps[stepper.index];
      dot.hidden = step?.id !== 'scores';
      if (step?.id === 'scores' && dot.textContent === '') dot.textContent = HOW_TO_PICK_A_CELL();
      const names = (step && EDITABLE[step.id]) ?? [];
      const key = JSON.stringify([step?.id, tokens, names.map((name) => shape(step.tensors[name]))]);
      if (key === editorsShown.key) {
        names.forEach((name, i) => setMatrix(editorsShown.editors[i], step.tensors[name]));
        return;
      }
      editorsShown = { key, editors: [] };
      editor.replaceChildren();
      for (const name of names) {
        const m = step.tensors[name];
        const labels = name.startsWith('W') ? null : tokens;
        const cells = matrixEditor(name, m, labels, (row, col, value) => {
          // An edit of X or a W replaces Q, K and V, so edits made to those before no longer apply.
          const upstream = ['X', 'W_q', 'W_k', 'W_v'].includes(name);
          const kept = parseEdits(state.edits).entries.filter((e) => !(upstream && ['Q', 'K', 'V'].includes(e.name)) &&
            !(e.name === name && e.row === row && e.col === col));
          ctx.set({ edits: formatEdits([...kept, { name, row, col, value }]) });
        });  // a refused number is marked in its cell; the steps keep the accepted numbers and say so
        editorsShown.editors.push(cells);
        editor.append(panel(`Edit ${name} (${m.rows}×${m.cols})`, cells));
      }
    }

    return () => {
      ({ tokens } = tokensOf(lab, state.sentence, FALLBACK,
        { mode: state.tokens, ctx, field: sentence, maxTokens: MAX_TOKENS }));
      const key = `${tokens.join(' ')}|${state.seed}`;
      if (key !== inputsKey) {  // new sentence or seed: fresh weights; edits made for the old ones go
        if (inputsKey !== '' && state.edits !== '') ctx.remember({ edits: '' });
        inputsKey = key;
        mha?.dispose();
        mha = new lab.MultiHeadAttention({ dModel: D_MODEL, numHeads: 1, bias: false, seed: state.seed });
        initial = mha.weights();
      }
      tokenChips(tokens, chips);
      const { entries, dropped: unread } = parseEdits(state.edits);
      // A link's entry outside its tensor is dropped from the state too, so the PyTorch code applies the same edits.
      const edits = editsInShape(entries, tokens.length);
      if (edits.length < entries.length) ctx.remember({ edits: formatEdits(edits) });
      const dropped = unread + entries.length - edits.length;
      if (dropped) ctx.notice(`${dropped} edit${dropped > 1 ? 's' : ''} in the link could not be read and ${dropped > 1 ? 'were' : 'was'} left out.`);
      const edited = new Set(edits.map((e) => e.name));
      const { x, w } = editedInputs(lab, tokens, state.seed, initial, edits);
      mha.loadWeights({ inProjWeight: lab.matrix(3 * D_MODEL, D_MODEL, [...w[0].data, ...w[1].data, ...w[2].data]),
        outProjWeight: initial.outProjWeight });
      const front = mha.trace(x).filter((s) => EDITABLE[s.id]);
      for (const s of front) {
        for (const name of Object.keys(s.tensors)) {
          if (edited.has(name)) {
            s.tensors[name] = applyEdits(s.tensors[name], name, edits);
            s.explanation += ' (with your edits)';
          }
        }
      }
      const [q, k, v] = ['Q', 'K', 'V'].map((n) => front.find((s) => s.tensors[n]).tensors[n]);
      const back = lab.traceAttention(q, k, v, { causal: state.mask === 'causal' });
      // The step on screen stays the same step when the list changes (the mask adds one before the
      // softmax): found again by its id, not by its position.
      const shownId = steps[state.step]?.id;
      steps = [...front, ...back];
      const again = steps.findIndex((st) => st.id === shownId);
      if (again >= 0 && again !== state.step) ctx.remember({ step: again });
      stepper.labels = { rows: tokens, cols: tokens };
      stepper.steps = steps;
      stepper.index = Math.min(state.step, steps.length - 1);
      showEditor();
    };
  },
});
