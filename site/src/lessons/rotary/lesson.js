// Part four, lesson 2: rotary positions (RoPE). One query of attnlab-kjv-llama turned pair by pair (Hugging
// Face's rotate_half pairing: dimension i with i + d/2), drawn as dials and given in numbers beside the package's
// own hook_rot_q; the whole prompt shifted by an offset (firstPosition) leaves every attention score as it was,
// where attnlab-kjv's learned positions do not; how fast each pair turns for a θ the learner picks; and the
// model's loss per position on held-out text far past the length it was trained on, measured in slices.
import { el, field, formatDifference, formatNumber, isolated, select, setOptions } from '../../dom.js';
import { chartWidth, lineChart } from '../../line-chart.js';
import { llamaLabel, llamaLine, llamaModel, llamaPromptIds } from '../../modern-model.js';
import { MODERN_PROGRAM } from '../../modern-program.js';
import { lessonPage } from '../../page.js';
import { answerAfterCheck } from '../../try-this.js';
import { nextTurn, sweepRunner } from '../../sweep-runner.js';
import { heatmap, sentenceInput, SIGNED } from '../../views.js';
import { CHAPTERS, HELD_OUT } from '../../held-out-text.js';
import { blockMeans, checkComeBack, EXERCISE_PAIR, frequencies, largestDifference, lossWords, nextTokenLosses, passages,
  rotate, scoresBlock, TAU, wavelengths, wrapped } from './parts.js';
import programSource from './program.py?raw';
import { DEFAULT_PROMPT, LOSS, MAX_PROMPT_TOKENS, OFFSETS, PROGRAM, THETAS } from './settings.js';

const f3 = (x) => formatNumber(x, 3);
const f4 = (x) => formatNumber(x, 4);
const degrees = (radians) => `${formatNumber((radians * 180) / Math.PI, 1)}°`;
const thetaText = (theta) => theta.toLocaleString('en');
const scoreNames = (layers) => Array.from({ length: layers }, (_, l) => `blocks.${l}.attn.hook_attn_scores`);

// One dial: the pair (x_i, x_{i+d/2}) before the turn (grey, dashed) and after it (blue), the arc between them
// the angle p·ω_i; both arrows as long as the pair (a rotation keeps the length), the dial scaled to it.
const NS = 'http://www.w3.org/2000/svg';
const svgEl = (tag, attrs) => {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
};
const DIAL = 72, R = 30, C = DIAL / 2;
function dial({ pair, half, before, after, angle, omega }) {
  const at = ([x, y]) => {
    const length = Math.hypot(x, y) || 1;
    return [C + (R * x) / length, C - (R * y) / length];  // y up, as the pair is drawn on paper
  };
  const [bx, by] = at(before), [ax, ay] = at(after);
  const turn = wrapped(angle);
  const arc = svgEl('path', { d: `M${(C + (bx - C) * 0.55).toFixed(1)},${(C + (by - C) * 0.55).toFixed(1)} ` +
    `A${R * 0.55},${R * 0.55} 0 ${turn > Math.PI ? 1 : 0} 0 ${(C + (ax - C) * 0.55).toFixed(1)},${(C + (ay - C) * 0.55).toFixed(1)}`,
  class: 'dial-arc' });
  const label = `Pair ${pair} (dimensions ${pair} and ${pair + half}): turned ${f3(angle)} radians (${degrees(turn)} of a turn after whole turns) ` +
    `at ${f4(omega)} radians per token`;
  const svg = svgEl('svg', { viewBox: `0 0 ${DIAL} ${DIAL}`, width: DIAL, height: DIAL, role: 'img', 'aria-label': label });
  svg.append(svgEl('circle', { cx: C, cy: C, r: R, class: 'dial-face' }),
    svgEl('line', { x1: C, y1: C, x2: bx, y2: by, class: 'dial-before' }),
    turn > 1e-3 ? arc : svgEl('g', {}),
    svgEl('line', { x1: C, y1: C, x2: ax, y2: ay, class: 'dial-after' }),
    svgEl('circle', { cx: ax, cy: ay, r: 3, class: 'dial-tip' }));
  return el('li', { class: 'dial' }, svg, el('span', { class: 'dial-text', 'aria-hidden': 'true' },
    el('b', { text: `pair ${pair}` }), el('br'), degrees(turn), el('br'), `ω ${f4(omega)}`));
}

lessonPage({
  slug: 'rotary',
  intro: [
    'GPT-2 adds a learned vector for each position to each token before the first layer. Today’s models (Llama, Qwen, Mistral, ' +
      'SmolLM2) add nothing: inside every head they turn the query and the key by an angle that grows with the position, the ' +
      'rotary position embedding (RoPE, Su et al., 2021). A head’s numbers are taken in pairs, and each pair is turned as a point ' +
      'in the plane is turned, by its own speed: the first pair fast, the last very slowly.',
    'A score is a dot product of a turned query and a turned key, and turning both by the angles of their positions leaves the ' +
      'difference of the angles: the score depends on the tokens and on how far apart they are, never on where the two stand. Move ' +
      'the whole prompt later and not one score changes. Below, on attnlab’s own small Llama, with its numbers beside the package’s.',
  ],
  formula: String.raw`\begin{gathered}\begin{pmatrix} q'_i \\ q'_{i+d/2} \end{pmatrix} = \begin{pmatrix} \cos p\omega_i & -\sin p\omega_i \\ \sin p\omega_i & \cos p\omega_i \end{pmatrix} \begin{pmatrix} q_i \\ q_{i+d/2} \end{pmatrix}\\ \omega_i = \theta^{-2i/d}, \quad q'_m \cdot k'_n = g(q, k, m - n)\end{gathered}`,
  pytorch: { source: programSource, ...MODERN_PROGRAM, ...PROGRAM },
  call: () => 'const { model, tokenizer } = await lab.loadBuiltinLlama();\n' +
    'const { cache } = model.runWithCache(ids, { names: [\'blocks.0.attn.hook_q\', \'blocks.0.attn.hook_rot_q\'] });\n' +
    'const shifted = model.runWithCache(ids, { names: [\'blocks.0.attn.hook_attn_scores\'], firstPosition: offset });\n' +
    'const session = model.session();  // the long text a slice at a time\n' +
    'const { logits } = session.append(ids.slice(0, 32));',
  schema: {
    prompt: { type: 'text', maxLength: 200, default: DEFAULT_PROMPT },
    position: { type: 'int', min: 0, max: MAX_PROMPT_TOKENS - 1, default: 8 },
    layer: { type: 'int', min: 0, max: 3, default: 0 },
    head: { type: 'int', min: 0, max: 3, default: 0 },
    offset: { type: 'int', ...OFFSETS, default: 100 },
    theta: { type: 'enum', values: THETAS, default: 10000 },
  },
  async prepare(lab, notices, loading) {
    const llama = await llamaModel(lab, loading);
    loading('attnlab-kjv, the GPT to compare with (its weights)');
    const gpt = await lab.loadBuiltinModel();
    return { ...llama, gpt: gpt.model };
  },
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, tokenizer, gpt } = prepared;
    const { numLayers, numHeads, headDim, ropeTheta, maxPositionEmbeddings } = model.config;
    const half = headDim / 2;
    const omega = frequencies(ropeTheta, headDim);
    const label = (id) => llamaLabel(tokenizer, id);

    // The controls.
    const promptBox = sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt }), 200, { key: 'prompt', lines: 2 });
    const positionPick = select([], state.position, (v) => ctx.set({ position: Number(v) }));
    const range = (n) => Array.from({ length: n }, (_, i) => [i, String(i)]);
    const layerPick = select(range(numLayers), state.layer, (v) => ctx.set({ layer: Number(v) }));
    const headPick = select(range(numHeads), state.head, (v) => ctx.set({ head: Number(v) }));
    const offsetNote = el('span', { class: 'field-hint', role: 'status' });
    const offsetBox = el('input', { type: 'number', min: OFFSETS.min, max: OFFSETS.max, value: state.offset, 'data-state': 'offset',
      on: { change: (e) => {
        const typed = e.target.value.trim();
        const offset = Math.max(OFFSETS.min, Math.min(OFFSETS.max, Math.trunc(Number(typed)) || OFFSETS.min));
        offsetNote.textContent = String(offset) === typed ? '' : `An offset is a whole number from ${OFFSETS.min} to ${OFFSETS.max.toLocaleString('en')}: using ${offset}.`;
        ctx.set({ offset });
      } } });
    const thetaPick = select(THETAS.map((t) => [t, `${thetaText(t)}${t === ropeTheta ? ' (this model’s)' : ''}`]), state.theta,
      (v) => ctx.set({ theta: Number(v) }));
    thetaPick.dataset.state = 'theta';

    // The dials and their numbers.
    const dialsSaid = el('p', { class: 'explain dials-said' });
    const dials = el('ul', { class: 'dials', 'aria-label': 'Each pair of the query, turned' });
    const numbers = el('table', { class: 'data rot-table' });
    const rotReadout = el('p', { class: 'readout rot-readout', 'aria-live': 'polite' });

    // The shift.
    const shiftLlama = el('p', { class: 'readout shift-llama', 'aria-live': 'polite' });
    const shiftGpt = el('p', { class: 'readout shift-gpt', 'aria-live': 'polite' });
    const shiftSaid = el('p', { class: 'explain shift-said' });
    // One head's layer-0 scores, unshifted and shifted, for each model: red above 0, blue below, one scale a model.
    const scoreMap = () => heatmap({ ...SIGNED, decimals: 2, showValues: false, rowTitle: 'Query', colTitle: 'Key' });
    const maps = { llama: [scoreMap(), scoreMap()], gpt: [scoreMap(), scoreMap()] };
    const gptPanel = el('div', { class: 'panel' }, el('h3', { text: 'attnlab-kjv, learned positions' }), ...maps.gpt);
    const showMaps = (pair, blocks, T, labels, captions) => {
      let largest = 0;
      for (const b of blocks) for (const v of b) if (Number.isFinite(v)) largest = Math.max(largest, Math.abs(v));
      pair.forEach((map, i) => Object.assign(map, { matrix: { rows: T, cols: T, data: blocks[i] }, rowLabels: labels, colLabels: labels,
        domain: [-largest || -1, largest || 1], caption: captions[i] }));
    };
    const tokenLabels = (ids) => ids.map((id, j) => `${j}: ${label(id)}`);

    // The speeds.
    const speedSaid = el('p', { class: 'explain speed-said' });
    const speedChart = el('div', { class: 'panel speed-chart' });
    const speeds = el('table', { class: 'data speed-table' });

    // Try this: after how many tokens does the exercise's pair come back round?
    const guessBox = el('input', { type: 'number', min: 0, step: 'any', inputmode: 'decimal' });
    const verdict = el('p', { class: 'explain exercise-verdict', role: 'status' });
    const question = el('p');
    const check = el('button', { type: 'button', text: 'Check', on: { click: () => {
      const result = checkComeBack(Number(guessBox.value), EXERCISE_PAIR, frequencies(state.theta, headDim));
      verdict.textContent = result.message;
      verdict.dataset.correct = String(result.correct);
      if (Number(guessBox.value) > 0) answer.reveal();  // a guess was checked (not "type a number")
    } } });
    // Every pair's wavelength, to the token, is the answer: the table is hidden until the learner has checked one.
    const answer = answerAfterCheck('every pair’s speed and wavelength to the token',
      el('details', { class: 'speed-numbers' }, el('summary', { text: 'Every pair’s speed and wavelength' }),
        el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Every pair’s speed and wavelength' }, speeds)));
    const exercise = el('section', { class: 'exercise', 'aria-label': 'Try this: when does a pair come back round?' },
      el('h2', { text: 'Try this: when does a pair come back round?' }), question,
      el('div', { class: 'controls' }, field('Tokens', guessBox), check), verdict);

    // The loss past the trained length.
    const sweep = sweepRunner('the loss at each position', (error) => ctx.report(error));
    const lossChart = el('div', { class: 'panel loss-chart' });
    const lossSaid = el('p', { class: 'explain loss-said' });
    const lossTable = el('table', { class: 'data loss-table' });

    root.append(llamaLine(prepared),
      el('div', { class: 'controls' }, promptBox),
      el('div', { class: 'controls' }, field('Token position', positionPick), field('Layer', layerPick), field('Query head', headPick)),
      el('h2', { text: 'One query, turned pair by pair' }), dialsSaid,
      el('div', { class: 'panel' }, dials),
      rotReadout,
      el('details', { class: 'rot-numbers' }, el('summary', { text: 'The numbers of every pair' }),
        el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'The numbers of every pair' }, numbers)),
      el('h2', { text: 'Shift the whole prompt: the scores stay' }),
      el('div', { class: 'controls' }, field('Offset (positions)', offsetBox), offsetNote),
      shiftLlama, shiftGpt,
      el('div', { class: 'grid' }, el('div', { class: 'panel' }, el('h3', { text: 'attnlab-kjv-llama, RoPE' }), ...maps.llama), gptPanel),
      shiftSaid,
      el('h2', { text: 'How fast each pair turns' }),
      el('div', { class: 'controls' }, field('θ (rope_theta)', thetaPick)),
      speedSaid, speedChart, ...answer.nodes,
      exercise,
      el('h2', { text: 'Past the length it was trained on' }),
      el('p', { text: `The model was trained on windows of ${maxPositionEmbeddings} tokens: it never saw a query and a key further apart ` +
        `than ${maxPositionEmbeddings - 1}, nor a pair turned further than position ${maxPositionEmbeddings - 1} turns it. RoPE gives ` +
        'every later position an angle all the same, so the model runs on. How well? Below, King James text it never trained on (' +
        `chapters its training held out, from ${CHAPTERS[0].book} ${CHAPTERS[0].chapter} on), in ${LOSS.passages} passages of ${LOSS.length.toLocaleString('en')} tokens, each read from position 0, ` +
        `and the loss of each next token, averaged over the passages and over each ${LOSS.block} positions.` }),
      sweep.node, lossChart, lossSaid,
      el('details', { class: 'loss-numbers' }, el('summary', { text: 'The mean loss of each stretch of positions' }),
        el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'The mean loss of each stretch of positions' }, lossTable)));

    const table = (node, head, rows) => node.replaceChildren(
      el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map((c, j) => el(j ? 'td' : 'th', j ? { text: c } : { scope: 'row', text: c }))))));

    // The query at one position of one head, turned here and by the package.
    function drawRotation(ids, position, layer, head) {
      const names = [`blocks.${layer}.attn.hook_q`, `blocks.${layer}.attn.hook_rot_q`];
      const { cache } = model.runWithCache(ids, { names });
      const [q, rotQ] = names.map((n) => cache.get(n));
      const at = (position * numHeads + head) * headDim;
      const before = q.data.subarray(at, at + headDim), package_ = rotQ.data.subarray(at, at + headDim);
      const mine = rotate(before, position, omega);
      const { value } = largestDifference(mine, package_);
      dials.replaceChildren(...Array.from({ length: half }, (_, i) => dial({ pair: i, half, before: [before[i], before[i + half]],
        after: [mine[i], mine[i + half]], angle: position * omega[i], omega: omega[i] })));
      table(numbers, ['Pair', 'Dimensions', 'ω (rad/token)', 'Angle p·ω (rad)', 'q before', 'Turned here', 'Package’s hook_rot_q'],
        Array.from({ length: half }, (_, i) => [String(i), `${i}, ${i + half}`, f4(omega[i]), f3(position * omega[i]),
          `${f4(before[i])}, ${f4(before[i + half])}`, `${f4(mine[i])}, ${f4(mine[i + half])}`, `${f4(package_[i])}, ${f4(package_[i + half])}`]));
      const word = isolated(label(ids[position]));
      dialsSaid.textContent = `Query head ${head} of layer ${layer} at position ${position} (“${word}”): its ${headDim} numbers are ` +
        `${half} pairs, dimension i with dimension i + ${half} (Hugging Face’s rotate_half; Meta’s original code pairs neighbours ` +
        `2i and 2i + 1 instead, and a converted checkpoint has its query and key rows permuted to match). Each dial shows one pair ` +
        `before the turn (grey, dashed) and after it (blue); the arc is the angle, position ${position} × ω_i, after whole turns. ` +
        'Pair 0 turns a radian a token; the last pairs have hardly moved.';
      rotReadout.textContent = `The page turned hook_q by these angles itself: the largest difference from the package’s hook_rot_q, ` +
        `over all ${headDim} numbers, is ${formatDifference(value)} — float32 rounding (the package turns in float32, the page in double).`;
      rotReadout.dataset.difference = String(value);
      rotReadout.dataset.rotated = Array.from(mine).join(',');
    }

    // Every score of the prompt at positions 0 …, computed a task before the shifted run.
    let plainRun = { key: '', cache: null };
    function unshifted(ids) {
      const key = ids.join(',');
      if (plainRun.key !== key) plainRun = { key, cache: model.runWithCache(ids, { names: scoreNames(numLayers) }).cache };
      return plainRun.cache;
    }
    // … and at offset … (runWithCache's firstPosition).
    function drawShiftLlama(ids, offset, head) {
      const T = ids.length;
      const names = scoreNames(numLayers);
      const plain = unshifted(ids);
      const moved = model.runWithCache(ids, { names, firstPosition: offset }).cache;
      let largest = 0, size = 0;
      for (const n of names) {
        largest = Math.max(largest, largestDifference(plain.get(n).data, moved.get(n).data).value);
        for (const v of plain.get(n).data) if (Number.isFinite(v)) size = Math.max(size, Math.abs(v));
      }
      const cell = (cache) => cache.get(names[0]).data[(head * T + T - 1) * T];
      shiftLlama.textContent = `attnlab-kjv-llama, positions 0–${T - 1} and then ${offset}–${offset + T - 1}: the largest difference ` +
        `over every score of every head of all ${numLayers} layers is ${formatDifference(largest)}. Layer 0, head ${head}, query ` +
        `${ends(ids)}: ${f4(cell(plain))} and ${f4(cell(moved))}.`;
      shiftLlama.dataset.difference = String(largest);
      shiftLlama.dataset.cells = `${cell(plain)},${cell(moved)}`;
      const blocks = [plain, moved].map((c) => scoresBlock(c.get(names[0]), head, 0, T));
      stage('llama maps', [ids, offset, head], () => showMaps(maps.llama, blocks, T, tokenLabels(ids),
        [`Layer 0, head ${head}: scores at positions 0–${T - 1}`, `The same, at positions ${offset}–${offset + T - 1}`]));
      shiftSaid.textContent = `The Llama’s differences are float32 rounding: its scores are as large as ${f3(size)}, and a float32 number ` +
        'keeps about seven significant digits, so turning by other angles and summing again moves the last of them. The GPT’s are not: ' +
        'the same tokens at other positions get other position vectors added, so its queries and keys are other vectors. (Its first ' +
        'layer only: in later layers the prompt’s tokens have also read the tokens put before them, which says nothing about positions.)';
    }
    const ends = (ids) => `“${isolated(label(ids[ids.length - 1]))}” on key “${isolated(label(ids[0]))}”`;

    // attnlab-kjv's first layer with the prompt alone and after `offset` other tokens: the GPT has no first-position
    // option (its positions are where the tokens stand), so the prompt is moved by putting tokens before it.
    const name = 'blocks.0.attn.hook_attn_scores';
    let leadIds = null;  // the held-out text's first tokens, encoded once
    let alone = { key: '', scores: null };  // the prompt alone, computed a task before the shifted run
    function gptAlone(ids) {
      const key = ids.join(',');
      if (alone.key !== key) alone = { key, scores: gpt.runWithCache(ids, { names: [name] }).cache.get(name) };
      leadIds ??= Array.from(tokenizer.encode(HELD_OUT.slice(0, 4000)));
      return alone.scores;
    }
    function drawShiftGpt(ids, offset, head) {
      const T = ids.length;
      const gptContext = gpt.config.contextLength;
      if (offset + T > gptContext) {
        shiftGpt.textContent = `attnlab-kjv learned one position vector for each of positions 0–${gptContext - 1}: with the prompt ` +
          `moved to ${offset}–${offset + T - 1} it would need positions it does not have. Choose an offset up to ${gptContext - T} to compare it.`;
        delete shiftGpt.dataset.difference;
        delete shiftGpt.dataset.cells;
        gptPanel.hidden = true;
        return;
      }
      const alone = gptAlone(ids);
      const after = gpt.runWithCache([...leadIds.slice(0, offset), ...ids], { names: [name] }).cache.get(name);
      let largest = 0;
      const gptHeads = gpt.config.numHeads;
      for (let h = 0; h < gptHeads; h++) largest = Math.max(largest, largestDifference(scoresBlock(alone, h, 0, T), scoresBlock(after, h, offset, T)).value);
      const gh = Math.min(head, gptHeads - 1);
      const cells = [scoresBlock(alone, gh, 0, T)[(T - 1) * T], scoresBlock(after, gh, offset, T)[(T - 1) * T]];
      shiftGpt.textContent = `attnlab-kjv (learned positions), the prompt alone and after ${offset} other tokens (the start of the ` +
        `held-out text below): the largest difference over its layer-0 scores among the prompt’s own tokens is ${f3(largest)}. ` +
        `Layer 0, head ${gh}, query ${ends(ids)}: ${f4(cells[0])} and ${f4(cells[1])}.`;
      shiftGpt.dataset.difference = String(largest);
      shiftGpt.dataset.cells = cells.join(',');
      gptPanel.hidden = false;
      const blocks = [scoresBlock(alone, gh, 0, T), scoresBlock(after, gh, offset, T)];
      stage('gpt maps', [ids, offset, head], () => showMaps(maps.gpt, blocks, T, tokenLabels(ids),
        [`Layer 0, head ${gh}: scores of the prompt alone`, `The same, after ${offset} other tokens`]));
    }

    function drawSpeeds(theta) {
      const chosen = frequencies(theta, headDim);
      const own = wavelengths(omega), other = wavelengths(chosen);
      const width = chartWidth(speedChart);
      const series = [{ name: `θ = ${thetaText(ropeTheta)} (this model)`, points: Array.from(own, (w, i) => [i, Math.log10(w)]) }];
      if (theta !== ropeTheta) series.push({ name: `θ = ${thetaText(theta)}`, points: Array.from(other, (w, i) => [i, Math.log10(w)]) });
      speedChart.replaceChildren(lineChart(series, { xLabel: 'Pair i', yLabel: 'Wavelength, log₁₀ tokens', width,
        title: `Each pair’s wavelength (tokens per full turn), on a log scale: from ${formatNumber(own[0], 2)} to ${formatNumber(own[half - 1], 0)} tokens at θ = ${thetaText(ropeTheta)}` +
          (theta !== ropeTheta ? `; from ${formatNumber(other[0], 2)} to ${formatNumber(other[half - 1], 0)} at θ = ${thetaText(theta)}` : '') }));
      table(speeds, ['Pair', `ω at θ = ${thetaText(ropeTheta)}`, 'Wavelength (tokens)', `ω at θ = ${thetaText(theta)}`, 'Wavelength (tokens)'],
        Array.from({ length: half }, (_, i) => [String(i), formatNumber(omega[i], 5), formatNumber(own[i], 1), formatNumber(chosen[i], 5), formatNumber(other[i], 1)]));
      speeds.dataset.wavelengths = Array.from(other).join(',');
      const beyond = Array.from(other).filter((w) => w > maxPositionEmbeddings).length;
      speedSaid.textContent = `ω_i = θ^(−2i/${headDim}): pair 0 always turns one radian a token, a full turn every 2π = ${formatNumber(TAU, 2)} tokens, ` +
        `and each later pair more slowly, down to pair ${half - 1} at θ^(−${headDim - 2}/${headDim}). At θ = ${thetaText(theta)} ` +
        `${beyond} of the ${half} pairs take longer than the ${maxPositionEmbeddings} trained positions to turn once: across a training window they ` +
        'never come back round, so together with the fast pairs they can tell far from near. A larger θ slows every pair but the first ' +
        '(models with long contexts use θ in the hundreds of thousands and more); the model itself was trained with ' +
        `θ = ${thetaText(ropeTheta)}, and only that θ runs it: this control computes the angles, not the model.`;
      question.textContent = `At θ = ${thetaText(theta)}, pair ${EXERCISE_PAIR} (dimensions ${EXERCISE_PAIR} and ${EXERCISE_PAIR + half}) turns ` +
        `ω_${EXERCISE_PAIR} = ${formatNumber(chosen[EXERCISE_PAIR], 4)} radians per token. After how many tokens has it turned once round, ` +
        'so that its dial points where it pointed at position 0? (To within half a token; change θ above for another question.)';
    }

    // The held-out passages, read a slice at a time through the KV cache (every position's logits, as a full forward).
    let losses = null;
    function drawLoss(perPassage) {
      const points = blockMeans(perPassage, LOSS.block);
      const words = lossWords(perPassage, maxPositionEmbeddings);
      const inside = points.filter(([x]) => x < maxPositionEmbeddings).map(([, y]) => y);
      const reference = inside.reduce((a, b) => a + b, 0) / inside.length;
      lossChart.replaceChildren(lineChart([
        { name: `mean of ${LOSS.block} positions, ${perPassage.length} passages`, points: points.map(([x, y]) => [x, y]) },
        { name: `its mean at positions 0–${maxPositionEmbeddings - 1}`, points: points.map(([x]) => [x, reference]) },
      ], { xLabel: 'Position (first of each stretch)', yLabel: 'Loss (nats per token)', width: chartWidth(lossChart),
        title: `attnlab-kjv-llama’s loss per next token against position on held-out text, past the ${maxPositionEmbeddings} positions it was trained on. ${words.text}` }));
      lossChart.dataset.means = points.map(([, y]) => y).join(',');
      lossChart.dataset.first = perPassage[0].join(',');
      lossSaid.textContent = `${words.text} attnlab-kjv cannot be asked the same question: it learned a vector for each of positions ` +
        `0–${gpt.config.contextLength - 1} only, and has none to add at position ${gpt.config.contextLength} (the package refuses a longer text). ` +
        'The numbers are measured now, in this page, on the weights it ships.';
      table(lossTable, ['Positions', 'Mean loss (nats)'], points.map(([x, y]) => [`${x}–${x + LOSS.block - 1}`, f3(y)]));
    }
    async function measureLoss({ signal, progress }) {
      await nextTurn(signal);
      const texts = passages(Array.from(tokenizer.encode(HELD_OUT)), LOSS.passages, LOSS.length);
      const perPassage = [];
      for (const [p, ids] of texts.entries()) {
        const session = model.session();
        try {
          const out = [];
          for (let start = 0; start < ids.length - 1; start += LOSS.slice) {
            progress(`passage ${p + 1} of ${texts.length}, positions ${start}–${Math.min(start + LOSS.slice, ids.length - 1) - 1}`);
            await nextTurn(signal);
            const { logits } = session.append(ids.slice(start, Math.min(start + LOSS.slice, ids.length - 1)));
            out.push(...nextTokenLosses(logits, ids, start));
          }
          perPassage.push(out);
        } finally {
          session.dispose();
        }
      }
      losses = perPassage;
      drawLoss(losses);
    }

    // The figures are drawn one a task (a few tens of milliseconds each at a phone's speed), each only when what it
    // reads has changed; root's data-drawing is 'true' until the last is drawn (the tests wait for 'false').
    const drawnKeys = new Map();
    let queue = [];
    let turn = 0;
    function stage(name, inputs, draw) {
      const key = JSON.stringify(inputs);
      queue = queue.filter((s) => s.name !== name);
      if (drawnKeys.get(name) === key) return;
      queue.push({ name, key, draw });
      root.dataset.drawing = 'true';
      clearTimeout(turn);
      turn = setTimeout(step);
    }
    function step() {
      const next = queue.shift();
      if (next) {
        try {
          next.draw();
          drawnKeys.set(next.name, next.key);
        } catch (error) {
          queue = [];
          ctx.report(error);
        }
      }
      if (queue.length) turn = setTimeout(step);
      else root.dataset.drawing = 'false';
    }

    return () => {
      const { ids } = llamaPromptIds(tokenizer, model, state.prompt, DEFAULT_PROMPT, { box: promptBox, limit: MAX_PROMPT_TOKENS });
      const position = Math.min(state.position, ids.length - 1);
      setOptions(positionPick, ids.map((id, j) => [j, `${j}: ${label(id)}`]), position);
      setOptions(layerPick, range(numLayers), state.layer);
      setOptions(headPick, range(numHeads), state.head);
      const layer = Math.min(state.layer, numLayers - 1), head = Math.min(state.head, numHeads - 1);
      stage('rotation', [ids, position, layer, head], () => drawRotation(ids, position, layer, head));
      stage('unshifted', [ids], () => unshifted(ids));
      stage('shift', [ids, state.offset, head], () => drawShiftLlama(ids, state.offset, head));
      stage('gpt alone', [ids], () => gptAlone(ids));
      stage('gpt', [ids, state.offset, head], () => drawShiftGpt(ids, state.offset, head));
      stage('speeds', [state.theta], () => drawSpeeds(state.theta));
      sweep.start('loss', measureLoss);
    };
  },
});
