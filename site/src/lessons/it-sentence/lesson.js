// Trained model: the "it" sentence, trained. A 2-layer bidirectional encoder attnlab trained to answer
// "which noun does 'it' stand for?" (cpp/train/train_referent.cpp; the package's models/referent/).
// Nothing supervised its attention; the page runs the model in the browser and shows where every head
// looks from "it", the head the training run named, and the figures measured on held-out sentences.
import { el, field, formatNumber, select, setOptions } from '../../dom.js';
import { referentModel } from '../../models.js';
import { lessonPage } from '../../page.js';
import { heatmap, panel } from '../../views.js';
import modelUrl from '../../../../web/models/referent/model.safetensors?url';
import pytorchSource from './program.py?raw';
import { MODEL_FILE, PROGRAM } from './settings.js';

const percent = (x) => `${formatNumber(100 * x, 1)}%`;
// A frame's words with its slots shown as blanks: "the ___ didn't cross the ___ because it was too ___".
// A frame as its select shows it: up to "because" (the rest, "because it is too ___", is every frame's),
// short enough for a phone's closed select; the sentence itself is shown whole below.
const frameText = (f) => `${f.words.map((w) => (w.startsWith('<') ? '___' : w)).join(' ').split(' because ')[0]} …`;

lessonPage({
  slug: 'it-sentence',
  intro: [
    'Lesson 1 asked what “it” should look at in “The animal didn’t cross the street because it was too tired”. ' +
      'Here is a model that learned it. attnlab trained a small encoder (two layers of self-attention, no causal ' +
      'mask, so “it” also sees the adjective after it) on one question: at the position of “it”, which word does ' +
      '“it” stand for? The loss only scores that answer. Nothing tells the heads where to look.',
    'The sentences come from four frames, in both noun orders, with 20 animals, 16 places, 16 objects, 14 containers ' +
      'and 22 adjectives, so neither the position nor the frame gives the answer away. The cheapest way to answer ' +
      'is to look from “it” at the right noun and copy it — and that is what one head learned to do.',
    'Held-out sentences are (noun, noun, adjective) combinations the model never saw together in training, in ' +
      'either order: the pair “animal” + “street” with every adjective (the lesson’s own sentences), and about a ' +
      'fifth of all other combinations, chosen by a hash. Every word of them was in training, never in that combination.',
  ],
  formula: String.raw`\begin{gathered}\text{logits} = W\,\operatorname{LN}\!\big(h^{(2)}_{\text{it}}\big) + b\\
    \mathcal{L} = -\log \operatorname{softmax}(\text{logits})_{\text{noun}}\end{gathered}`,
  // The model rebuilt in PyTorch from the weights this page runs, on the page's sentence.
  pytorch: { source: pytorchSource, ...PROGRAM, fileUrls: { [MODEL_FILE]: modelUrl } },
  call: 'const referent = await loadReferentModel();  // no init(): its own module\n' +
    "const s = referent.sentence({ frame: 'cross', first: 'animal', second: 'street', adjective: 'tired' });\n" +
    'const { prediction, fromIt } = referent.forward(s);  // fromIt[layer][head]: weights from "it"',
  schema: PROGRAM.schema,
  prefetch: ['referent-model'],
  lab: false,  // the model's own module is all the page needs
  prepare: referentModel,
  setup(ctx) {
    const { state, root, prepared: referent } = ctx;
    const { numLayers, numHeads } = referent.config;
    const named = referent.namedHead;
    const { summary } = referent.log;
    const frameOf = (name) => referent.frames.find((f) => f.name === name) ?? referent.frames[0];

    // Words that do not fit the chosen frame (a link from elsewhere, or a frame just changed) become
    // the frame's first choices, and the page says so.
    const fix = el('p', { class: 'notice', hidden: true, role: 'status' });
    const normalise = () => {
      const f = frameOf(state.frame);
      const adjectives = [...f.firstAdjectives, ...f.secondAdjectives];
      const changed = [];
      if (!f.firstNouns.includes(state.first)) { changed.push(`first noun “${state.first}”`); state.first = f.firstNouns[0]; }
      if (!f.secondNouns.includes(state.second)) { changed.push(`second noun “${state.second}”`); state.second = f.secondNouns[0]; }
      if (!adjectives.includes(state.adjective)) { changed.push(`adjective “${state.adjective}”`); state.adjective = f.firstAdjectives[0]; }
      return changed;
    };

    // Built once and set in place on every change (the learner's focus stays on the select just changed).
    const frameSelect = select([], '', (frame) => ctx.set({ frame }));
    const firstSelect = select([], '', (first) => ctx.set({ first }));
    const secondSelect = select([], '', (second) => ctx.set({ second }));
    const adjectiveSelect = select([], '', (adjective) => ctx.set({ adjective }));
    const swap = el('button', { type: 'button', on: { click: () => {
      const f = frameOf(state.frame);
      const inFirst = f.firstAdjectives.indexOf(state.adjective);
      const inSecond = f.secondAdjectives.indexOf(state.adjective);
      const adjective = inFirst >= 0 ? f.secondAdjectives[Math.min(inFirst, f.secondAdjectives.length - 1)]
        : f.firstAdjectives[Math.min(inSecond, f.firstAdjectives.length - 1)];
      ctx.set({ adjective });
    } } });
    const sentenceLine = el('p', { class: 'feedback', 'aria-live': 'polite' });
    const split = el('p', { class: 'explain' });
    const namedMap = heatmap({ rowTitle: 'Query', colTitle: 'Key (each word)' });
    // The named head over the whole sentence as text: “it” is chosen at first; any word can be.
    const colored = el('attn-token-colors');
    const layerMaps = Array.from({ length: numLayers }, () => heatmap({ rowTitle: 'Head', colTitle: 'Key (each word)' }));
    const sharesMap = heatmap({ rowTitle: 'Layer', colTitle: 'Head',
      rowLabels: Array.from({ length: numLayers }, (_, l) => `layer ${l}`), colLabels: Array.from({ length: numHeads }, (_, h) => `head ${h}`),
      caption: 'Held-out sentences where the head’s largest weight from “it” is on the right noun (share)' });
    const held = summary.heldoutHeadShares;
    sharesMap.matrix = { rows: numLayers, cols: numHeads, data: Float32Array.from(held.flat()) };
    const perLayer = held.map((heads, l) => `layer ${l}: ${heads.map((s, h) => `head ${h} ${percent(s)}`).join(', ')}`).join('; ');
    const measured = el('p', { class: 'explain', text:
      `Measured by the training run on ${summary.heldoutSentences} held-out sentences (its log ships with the model): the named head — ` +
      `layer ${named.layer}, head ${named.head}, chosen on the ${summary.trainSentences} training sentences as the head whose largest ` +
      `weight from “it” most often lands on the right noun — puts its largest weight on the right noun in ` +
      `${percent(summary.namedHeadHeldoutShare)} of held-out sentences (${percent(summary.namedHeadTrainShare)} of training ones). ` +
      `The model names the right noun in ${percent(summary.heldoutAccuracy)} of held-out sentences. Per head (${perLayer}): ` +
      `in layer 0 no head knows the adjective yet, so none can choose; the choice happens in layer ${named.layer}. ` +
      `Training took ${formatNumber(summary.seconds, 1)} s on one core.` });
    const seedNote = el('p', { class: 'explain', text:
      'An honest caveat: the same answers can also be computed another way — layer 0 copies the matching noun into the ' +
      'adjective’s position and “it” then reads the adjective. Both reach 100% accuracy. Which one training finds ' +
      'depended on the seed: with other seeds (1–5, same recipe) the best head’s held-out share ranged from 50% to 97%. ' +
      'The shipped model is seed 1; the program that trained it records the study in its opening comment.' });

    const controls = el('div', { class: 'controls' }, field('Frame', frameSelect), field('First noun', firstSelect),
      field('Second noun', secondSelect), field('Adjective', adjectiveSelect), swap);
    root.append(controls, fix, sentenceLine, split,
      panel(null, namedMap), panel(null, colored),
      el('div', { class: 'grid' }, ...layerMaps.map((m) => panel(null, m))),
      measured, panel('Where the decision happens: per layer and head', sharesMap), seedNote);

    return () => {
      const changed = normalise();
      if (changed.length) ctx.remember({ first: state.first, second: state.second, adjective: state.adjective });
      fix.hidden = changed.length === 0;
      fix.textContent = changed.length ? `Not in the “${state.frame}” frame: ${changed.join(', ')}; using its first choice instead.` : '';
      const f = frameOf(state.frame);
      const wordOptions = (list) => list.map((w) => [w, w]);
      // Each adjective says which noun it points at, and whether this combination was held out.
      const adjectiveOptions = [...f.firstAdjectives, ...f.secondAdjectives].map((adjective) => {
        const s = referent.sentence({ frame: f.name, first: state.first, second: state.second, adjective });
        return [adjective, `${adjective} (→ ${s.answer}${s.heldOut ? ', held out' : ''})`];
      });
      setOptions(frameSelect, referent.frames.map((fr) => [fr.name, frameText(fr)]), f.name);
      setOptions(firstSelect, wordOptions(f.firstNouns), state.first);
      setOptions(secondSelect, wordOptions(f.secondNouns), state.second);
      setOptions(adjectiveSelect, adjectiveOptions, state.adjective);

      const s = referent.sentence({ frame: f.name, first: state.first, second: state.second, adjective: state.adjective });
      const out = referent.forward(s);
      const labels = s.words.map((w, i) => `${i}:${w}`);
      const row = out.fromIt[named.layer][named.head];
      let top = 0;
      row.forEach((w, i) => { if (w > row[top]) top = i; });
      const probability = out.probabilities[referent.vocabulary.indexOf(out.prediction)];
      swap.textContent = `Swap “${state.adjective}” for an adjective about the other noun`;
      sentenceLine.textContent = `“${s.words.join(' ')}”: the model says “it” = ${out.prediction} ` +
        `(probability ${formatNumber(probability, 3)}; the answer is ${s.answer}). The named head looks hardest at ` +
        `“${s.words[top]}” (weight ${formatNumber(row[top], 3)}).`;
      split.textContent = s.heldOut
        ? 'This sentence is held out: its nouns and adjective never appeared together in training, in either order.'
        : 'This sentence was in the training set. Pick an adjective marked “held out” to see one the model never trained on.';
      Object.assign(namedMap, { matrix: { rows: 1, cols: row.length, data: row }, rowLabels: ['it'], colLabels: labels,
        caption: `Layer ${named.layer}, head ${named.head}: weights from “it” (largest on “${s.words[top]}”) — the named head` });
      Object.assign(colored, { attention: out.attention[named.layer][named.head], tokens: s.words.map((w, i) => (i ? ` ${w}` : w)),
        caption: `Layer ${named.layer}, head ${named.head}, the whole sentence: point at, tap or focus a word to shade every word by its weight from it` });
      colored.setAttribute('query', String(s.itPosition));
      layerMaps.forEach((m, l) => Object.assign(m, {
        matrix: { rows: numHeads, cols: row.length, data: Float32Array.from(out.fromIt[l].flatMap((r) => Array.from(r))) },
        rowLabels: Array.from({ length: numHeads }, (_, h) => `head ${h}`), colLabels: labels,
        caption: `Layer ${l}: each head’s weights from “it”` }));
    };
  },
});
