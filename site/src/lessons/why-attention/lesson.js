// Lesson 1: what "it" looks at, and attention as a soft database lookup. The picture is measured: the
// weights from "it" of the head attnlab's trained "it" sentence model uses to pick the noun
// (cpp/train/train_referent.cpp, the it-sentence lesson), computed in the page by the package.
import { el, field, formatNumber, select } from '../../dom.js';
import { referentModel } from '../../models.js';
import { lessonPage } from '../../page.js';
import { heatmap, panel } from '../../views.js';
import modelUrl from '../../../../web/models/referent/model.safetensors?url';
import pytorchSource from '../it-sentence/program.py?raw';
import { MODEL_FILE } from '../it-sentence/settings.js';
import { PROGRAM } from './settings.js';

// The two endings; each sentence is "the animal didn't cross the street because it was too <ending>".
const ENDINGS = {
  tired: '“tired” describes something alive, so the query of “it” asks for an animate noun — and matches the key of “animal”.',
  wide: '“wide” describes a place, so the query of “it” asks for a place — and matches the key of “street”.',
};

lessonPage({
  slug: 'why-attention',
  intro: [
    'A recurrent network reads a sentence one word at a time and squeezes everything into one vector. ' +
      'Attention lets every position look at every other position and take a weighted mix of them.',
    'In “The animal didn’t cross the street because it was too tired”, the word “it” should look at ' +
      '“animal”. End the sentence with “wide” instead and “it” means the street.',
    'Think of a soft database lookup: the query of “it” is compared with the key of every word; instead of ' +
      'returning the single best match, attention returns a mixture of all the values, weighted by how well ' +
      'each key matched.',
    'The weights below are not drawn by hand: they are measured, computed in this page from a small model ' +
      'attnlab trained to answer “which noun does ‘it’ stand for?”. Nobody told its heads where to look; one head ' +
      'learned to look from “it” at the right noun. The lesson “The ‘it’ sentence, trained” shows the whole model.',
  ],
  formula: String.raw`\begin{aligned}\text{weights} &= \operatorname{softmax}\!\Big(\frac{q\,K^\top}{\sqrt{d_k}}\Big)\\ \text{answer} &= \text{weights}\cdot V\end{aligned}`,
  // The "it" lesson's program on this lesson's sentence, reading the model's own weights.
  pytorch: { source: pytorchSource, ...PROGRAM, fileUrls: { [MODEL_FILE]: modelUrl } },
  call: 'const referent = await loadReferentModel();  // no init(): its own module\n' +
    "const s = referent.sentence({ first: 'animal', second: 'street', adjective: 'tired' });\n" +
    'const { layer, head } = referent.namedHead;\nconst weights = referent.forward(s).fromIt[layer][head];',
  schema: PROGRAM.schema,
  prefetch: ['referent-model'],
  lab: false,  // the model's own module is all the page needs
  prepare: referentModel,
  setup(ctx) {
    const { state, root, prepared: referent } = ctx;
    const { layer, head } = referent.namedHead;
    const lookup = heatmap({ rowLabels: ['it'], rowTitle: 'Query', colTitle: 'Key (each word)' });
    const says = el('p', { class: 'explain' });
    const top = el('p', { class: 'feedback' });
    const link = el('p', {}, 'Measured in a trained model: ',
      el('a', { href: './it-sentence.html', text: 'the “it” sentence, trained' }),
      ` (layer ${layer}, head ${head}; its largest weight from “it” is on the right noun in ` +
      `${formatNumber(100 * referent.log.summary.namedHeadHeldoutShare, 1)}% of sentences it never trained on).`);
    root.append(
      el('div', { class: 'controls' }, field('The sentence ends with', select(
        Object.keys(ENDINGS).map((e) => [e, `…because it was too ${e}`]), state.ending, (ending) => ctx.set({ ending })))),
      says, top, panel('Attention of “it”', lookup), link);
    return () => {
      const s = referent.sentence({ frame: 'cross', first: 'animal', second: 'street', adjective: state.ending });
      const weights = referent.forward(s).fromIt[layer][head];
      says.textContent = ENDINGS[state.ending];
      let best = 0;
      weights.forEach((w, i) => { if (w > weights[best]) best = i; });
      top.textContent = `“it” puts the most weight (${formatNumber(weights[best])}) on “${s.words[best]}”.`;
      Object.assign(lookup, { matrix: { rows: 1, cols: weights.length, data: weights }, colLabels: s.words,
        caption: 'How much “it” attends to each word (measured: the trained model’s named head)' });
    };
  },
});
