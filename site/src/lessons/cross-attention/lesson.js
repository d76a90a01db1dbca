// Lesson 6: cross-attention, on a translator attnlab trained (cpp/train/train_translator.cpp; the
// package's models/translator/). The learner's English sentence is translated in the page, word by word;
// each new French word's cross-attention row over the English words is shown as it is written, then
// the whole alignment, every head's, the encoder's and decoder's self-attention, and a check of each
// head against the gold alignment of sentences the model never trained on.
import { el, field, formatNumber, isolated, lastLeftOut, noteUnder, select, setOptions } from '../../dom.js';
import { translatorModel } from '../../models.js';
import { knownWords, markedWords, trustVerdict } from './translator-trust.js';
import { lessonPage } from '../../page.js';
import { heatmap, panel, sentenceInput, setSlider, slider } from '../../views.js';
import modelUrl from '../../../../web/models/translator/model.safetensors?url';
import vocabUrl from '../../../../web/models/translator/vocab.json?url';
import pytorchSource from './program.py?raw';
import { BEAM_WIDTH, DEFAULT_SENTENCE, MODEL_FILE, PROGRAM, VOCAB_FILE } from './settings.js';


// The word written most times in a row, and how many: a translation that repeats a word is the model
// off its grammar (a fragment such as "the dog" comes out as "le chien chien chien …").
function longestRun(words) {
  let best = { word: '', count: 0 };
  for (let i = 0, count = 0; i < words.length; i++) {
    count = i > 0 && words[i] === words[i - 1] ? count + 1 : 1;
    if (count > best.count) best = { word: words[i], count };
  }
  return best;
}
const percent = (x) => `${formatNumber(100 * x, 1)}%`;
// "aligned" in the head choices, glossed where they are chosen.
const HEAD_LABEL = 'Cross-attention head (aligned: how often its largest weight is on the right English word, in held-out sentences)';

// Row t of a decode reads targetTokens[t] and writes the next word (or the end).
const rowLabels = (t) => t.targetTokens.map((read, i) => `${read} → ${t.targetTokens[i + 1] ?? (t.finished ? '</s>' : '…')}`);
const rowOfMatrix = (m, r) => m.data.slice(r * m.cols, (r + 1) * m.cols);
const argmax = (row) => row.reduce((best, w, j) => (w > row[best] ? j : best), 0);

lessonPage({
  slug: 'cross-attention',
  intro: [
    'In cross-attention the queries come from one sequence and the keys and values from another. In translation, ' +
      'the decoder writes the French sentence one word at a time, and before each word it asks the English sentence ' +
      'which words matter now: while writing “chat” it should look at “cat”.',
    'This page runs a small encoder–decoder transformer that attnlab trained to translate English into French ' +
      '(sentences from a small grammar: 77 English and 117 French words — articles, nouns, adjectives, verbs, prepositions). French ' +
      'puts most adjectives after the noun, so the sentence below, “the small cat sees the red car”, becomes “le petit chat ' +
      'voit la voiture rouge”: watch the alignment cross at “red car”. ' +
      'Nothing told the model where to look; the alignment is what its training found useful.',
    'The weights are rectangular: one row per French position (query), one column per English word (key).',
  ],
  formula: String.raw`\begin{aligned}&\operatorname{CrossAttention}(Y, X)\\ &\quad= \operatorname{softmax}\Big(\frac{(YW_q^\top)(XW_k^\top)^\top}{\sqrt{d_k}}\Big)\,XW_v^\top\end{aligned}`,
  // The trained translator rebuilt in PyTorch from the files this page runs, translating the learner's sentence.
  pytorch: { source: pytorchSource, ...PROGRAM, fileUrls: { [MODEL_FILE]: modelUrl, [VOCAB_FILE]: vocabUrl } },
  call: 'const { model } = await lab.loadBuiltinTranslator();\n' +
    `const t = model.translate('${DEFAULT_SENTENCE}');\n` +
    't.text                    // the French\n' +
    't.crossAttention[1][2]    // Matrix: t.targetTokens × t.sourceTokens',
  schema: PROGRAM.schema,
  prefetch: ['translator'],
  prepare: translatorModel,
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, heldOut, log } = prepared;
    const { numDecoderLayers: layers, numHeads: heads, maxLen } = model.config;
    const { summary, setup } = log;
    const best = summary.bestHeadPerLayer;

    const sentenceBox = sentenceInput('English sentence', state.sentence, (sentence) => ctx.set({ sentence }), 120);
    const headOptions = [];
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        const share = summary.alignmentShare[l][h];
        // Short enough for a phone's closed select (390 px): the label says what "aligned" measures.
        headOptions.push([`${l}:${h}`, `layer ${l}, head ${h}: ${percent(share)} aligned${best[l].head === h ? ' (best)' : ''}`]);
      }
    }
    const headNote = el('span', { class: 'field-hint', role: 'status', hidden: true });
    const headSelect = select(headOptions, `${state.layer}:${state.head}`, (value) => {
      const [layer, head] = value.split(':').map(Number);
      ctx.set({ layer, head });
    });
    const headField = field(HEAD_LABEL, headSelect);
    headField.append(headNote);
    const controls = el('div', { class: 'controls' }, sentenceBox,
      field('Decoding', select([['1', 'greedy (the most likely word each step)'], [String(BEAM_WIDTH), `beam search, ${BEAM_WIDTH} hypotheses`]], state.beam,
        (beam) => ctx.set({ beam }))),
      headField);

    // What the model knows and where a sentence leaves it: the words it can read, the learner's words
    // marked, and a plain verdict when the translation cannot be trusted (translator-trust.js).
    const vocabulary = knownWords(model.sourceWordKinds, sentenceBox.querySelector('input'));
    const readWords = el('p', { class: 'read-words', hidden: true });
    const trust = el('p', { class: 'trust', 'aria-live': 'polite', hidden: true });
    const translation = el('p', { class: 'feedback', 'aria-live': 'polite' });
    // The row shown, by its French position: counted from 0 as the rows of the weights are (the URL keeps it as step).
    const stepSlider = slider('French position', { min: 0, max: 0, value: 0 }, (s) => ctx.set({ step: s }));
    const stepLine = el('p', { class: 'explain', 'aria-live': 'polite' });
    const stepRow = heatmap({ rowTitle: 'Writing', colTitle: 'English word (key)' });
    const lines = el('attn-head-view');
    const alignment = heatmap({ rowTitle: 'French position (query): reads → writes', colTitle: 'English word (key)' });
    // The model's three kinds of attention, every layer and head: click one to enlarge it.
    const modelView = (caption) => Object.assign(el('attn-model-view'), { caption });
    const encoderSelf = modelView('Encoder self-attention: English over English');
    const decoderSelf = modelView('Decoder self-attention: each French position over the ones before it (causal)');
    const crossAll = modelView('Cross-attention: French positions (rows) over English words (columns)');
    const shapes = el('p', { class: 'explain shapes' });

    const exampleSelect = select(heldOut.map((p, i) => [String(i), p.english]), String(state.example),
      (value) => ctx.set({ example: Number(value) }));
    const goldLine = el('p', { class: 'explain', 'aria-live': 'polite' });
    const gold = heatmap({ rowTitle: 'French word', colTitle: 'English word', caption: 'Gold alignment: 1 where the French word translates the English word' });
    const learned = heatmap({ rowTitle: 'French word', colTitle: 'English word' });
    const agreement = heatmap({ rowTitle: 'Layer', colTitle: 'Head',
      rowLabels: Array.from({ length: layers }, (_, l) => `layer ${l}`), colLabels: Array.from({ length: heads }, (_, h) => `head ${h}`),
      caption: 'This sentence: share of French words whose head puts its largest weight on the gold English word' });
    const measured = el('p', { class: 'explain', text:
      `Measured by the training run (its log ships with the model) on ${setup.heldoutPairs} held-out sentences the model never trained on: ` +
      `${percent(summary.heldoutExactMatch)} are translated exactly (greedy decoding); per layer, the head whose largest ` +
      `cross-attention weight most often lands on the gold English word: ${best.map((b, l) => `layer ${l} head ${b.head}, ` +
      `${percent(b.share)} of French words`).join('; ')}. The model has ${setup.parameters.toLocaleString('en')} parameters ` +
      `(${setup.encoderLayers} encoder and ${setup.decoderLayers} decoder layers, d_model ${setup.dModel}, ${setup.heads} heads); ` +
      `training took ${formatNumber(summary.seconds, 0)} s on one core.` });

    root.append(controls, vocabulary, readWords, translation, trust,
      panel('Word by word: where the decoder looks while writing each word', stepSlider, stepLine, panel(null, stepRow), panel(null, lines)),
      panel('The whole alignment', alignment, shapes),
      panel('Every head of the model: three kinds of attention per layer', encoderSelf, decoderSelf, crossAll),
      panel('Checked against the gold alignment', field('Held-out sentence', exampleSelect), goldLine, el('div', { class: 'grid' }, panel(null, gold), panel(null, learned)),
        panel(null, agreement)),
      measured);

    return () => {
      // The head: one the model has (a link from elsewhere may name another), said beside the control.
      const asked = { layer: state.layer, head: state.head };
      if (state.layer >= layers || state.head >= heads) ctx.remember({ layer: layers - 1, head: best[layers - 1].head });
      headNote.hidden = asked.layer === state.layer && asked.head === state.head;
      headNote.textContent = headNote.hidden ? ''
        : `The model has ${layers} layers of ${heads} heads: showing layer ${state.layer}, head ${state.head} instead of layer ${asked.layer}, head ${asked.head}.`;
      const { layer, head } = state;
      setOptions(headSelect, headOptions, `${layer}:${head}`);

      // The sentence: an empty box, unknown words and words past the model's length, each said under the box.
      let text = state.sentence;
      const words = model.sourceTokenizer.encode(text);
      const notes = [];
      if (words.words.length === 0) {
        text = DEFAULT_SENTENCE;
        notes.push(`No words in the box: translating “${DEFAULT_SENTENCE}” instead.`);
      }
      const t = model.translate(text, { beam: Number(state.beam), selfAttention: true });
      if (t.unknownWords.length) {
        notes.push(`Not in the model’s vocabulary, read as <unk> (unknown): ${t.unknownWords.map((w) => `“${isolated(w)}”`).join(', ')}.`);
      }
      if (t.truncated) notes.push(`The model reads ${maxLen} words: ${lastLeftOut(t.truncated.dropped, 'word')}.`);
      const run = longestRun(t.text.split(' '));
      if (run.count >= 3) {
        notes.push(`The model wrote “${run.word}” ${run.count} times in a row: it learned whole sentences of its grammar only ` +
          `(a subject, a verb, an object, such as “${DEFAULT_SENTENCE}”); on other text it has nothing to go on and keeps ` +
          'writing a likely word.');
      }
      noteUnder(sentenceBox, notes.join(' '));
      markedWords(readWords, words.words, t.unknownWords, t.grammar, t.sourceTokens.length);
      trust.textContent = trustVerdict(t, DEFAULT_SENTENCE);
      trust.hidden = trust.textContent === '';

      translation.textContent = `“${isolated(t.sourceTokens.join(' '))}” → “${t.text}”` +
        (t.finished ? '' : ` (stopped after ${t.targetTokens.length - 1} words without finishing)`) +
        ` — log-probability ${formatNumber(t.logProb, 3)} (probability ${formatNumber(Math.exp(t.logProb), 3)}).`;

      const labels = rowLabels(t);
      const cross = t.crossAttention[layer][head];
      const rows = cross.rows;
      const step = Math.min(state.step, rows - 1);
      setSlider(stepSlider, { max: rows - 1, value: step, format: (s) => `${s} (of 0–${rows - 1}): ${labels[s]}` });
      const row = rowOfMatrix(cross, step);
      const top = argmax(row);
      const writes = t.targetTokens[step + 1] ?? '</s> (the end)';
      stepLine.textContent = `French position ${step}: having read “${t.targetTokens[step]}”, the decoder writes “${writes}”. ` +
        `Layer ${layer}, head ${head} looks hardest at “${isolated(t.sourceTokens[top])}” (weight ${formatNumber(row[top], 2)}).`;
      Object.assign(stepRow, { matrix: { rows: 1, cols: row.length, data: row }, rowLabels: [labels[step]], colLabels: t.sourceTokens,
        caption: `Layer ${layer}, head ${head}: the cross-attention row of French position ${step}` });
      Object.assign(lines, { attention: cross, tokens: labels, keyTokens: t.sourceTokens,
        caption: `Layer ${layer}, head ${head}: lines from each French position to the English words (opacity = weight)` });
      lines.setAttribute('query', String(step));
      Object.assign(alignment, { matrix: cross, rowLabels: labels, colLabels: t.sourceTokens,
        caption: `Layer ${layer}, head ${head}: cross-attention weights, ${rows} French positions × ${t.sourceTokens.length} English words` });
      shapes.textContent = `queries ${rows}×${model.config.dModel} (one per French position), keys and values ` +
        `${t.sourceTokens.length}×${model.config.dModel} (one per English word) → weights ${rows}×${t.sourceTokens.length} per head → ` +
        `output ${rows}×${model.config.dModel}: as long as the French, not the English.`;
      Object.assign(encoderSelf, { attention: t.encoderSelfAttention, tokens: t.sourceTokens });
      Object.assign(decoderSelf, { attention: t.decoderSelfAttention, tokens: t.targetTokens });
      Object.assign(crossAll, { keyTokens: t.sourceTokens, tokens: labels, attention: t.crossAttention });
      crossAll.selected = { layer, head };

      // A held-out sentence: the model's alignment against the gold one, head by head.
      const example = Math.min(state.example, heldOut.length - 1);
      setOptions(exampleSelect, heldOut.map((p, i) => [String(i), p.english]), String(example));
      const pair = heldOut[example];
      const h = model.translate(pair.english);
      const french = pair.french.split(' '), english = pair.english.split(' ');
      const goldData = new Float32Array(french.length * english.length);
      pair.alignment.forEach((j, i) => { goldData[i * english.length + j] = 1; });
      Object.assign(gold, { matrix: { rows: french.length, cols: english.length, data: goldData }, rowLabels: french, colLabels: english });
      const correct = h.text === pair.french;
      const shares = new Float32Array(layers * heads);
      for (let l = 0; l < layers; l++) {
        for (let k = 0; k < heads; k++) {
          const m = h.crossAttention[l][k];
          const hits = pair.alignment.filter((j, i) => i < m.rows && argmax(rowOfMatrix(m, i)) === j).length;
          shares[l * heads + k] = hits / french.length;
        }
      }
      const chosen = h.crossAttention[layer][head];
      Object.assign(learned, { matrix: { rows: Math.min(french.length, chosen.rows), cols: chosen.cols, data: chosen.data.slice(0, Math.min(french.length, chosen.rows) * chosen.cols) },
        rowLabels: h.targetTokens.slice(1).concat(['</s>']).slice(0, Math.min(french.length, chosen.rows)).map((w, i) => `${h.targetTokens[i]} → ${w}`),
        colLabels: english, caption: `Layer ${layer}, head ${head}: the model’s weights while writing each French word` });
      Object.assign(agreement, { matrix: { rows: layers, cols: heads, data: shares } });
      goldLine.textContent = `“${pair.english}” → the model writes “${h.text}”` +
        (correct ? ', exactly the reference translation.' : `; the reference is “${pair.french}”.`) +
        ` Layer ${layer}, head ${head} puts its largest weight on the gold English word for ` +
        `${Math.round(shares[layer * heads + head] * french.length)} of ${french.length} French words.`;
    };
  },
});
