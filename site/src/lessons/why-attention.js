// Lesson 1: what "it" looks at, and attention as a soft database lookup.
import { el, field, formatNumber, select } from '../dom.js';
import { lessonPage } from '../page.js';
import { heatmap, panel } from '../views.js';

const SENTENCE = "The animal didn't cross the street because it was too";

// Hand-made key features, one row per word: [animate, place, verb, function word]. A trained model
// learns features like these; here they are written down so the lookup can be seen.
const FEATURES = {
  the: [0, 0, 0, 1], animal: [1, 0, 0, 0], "didn't": [0, 0, 0.5, 0.5], cross: [0, 0, 1, 0], street: [0, 1, 0, 0],
  because: [0, 0, 0, 1], it: [0.3, 0.3, 0, 0.3], was: [0, 0, 0.5, 0.5], too: [0, 0, 0, 1],
};

// What the query of "it" asks for, depending on how the sentence ends.
const ENDINGS = {
  tired: { query: [4, 0, 0, -1], says: '“tired” describes something alive, so the query of “it” asks for an animate noun.' },
  wide: { query: [0, 4, 0, -1], says: '“wide” describes a place, so the query of “it” asks for a place.' },
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
  ],
  formula: String.raw`\text{weights} = \operatorname{softmax}(q\,K^\top),\qquad \text{answer} = \text{weights}\cdot V`,
  pytorch: 'weights = torch.softmax(q @ K.T, dim=-1)\nanswer = weights @ V',
  call: 'const { weights, output } = lab.scaledDotProductAttention(q, K, V, { scale: 1 });',
  schema: { ending: { type: 'enum', values: Object.keys(ENDINGS), default: 'tired' } },
  setup(ctx) {
    const { lab, state, root } = ctx;
    const tokens = lab.tokenize(SENTENCE);
    const keys = lab.matrix(tokens.length, 4, tokens.flatMap((t) => FEATURES[t]));
    const lookup = heatmap({ rowLabels: ['it'], colLabels: tokens, rowTitle: 'Query', colTitle: 'Key (each word)',
      caption: 'How much “it” attends to each word', domain: [0, 1] });
    const keyMap = heatmap({ rowLabels: tokens, colLabels: ['animate', 'place', 'verb', 'function'], palette: 'RdBu',
      rowTitle: 'Word', colTitle: 'Feature', caption: 'Keys K (hand-made features)' });
    const says = el('p', { class: 'explain' });
    const top = el('p', { class: 'feedback' });
    root.append(
      el('div', { class: 'controls' }, field('The sentence ends with', select(
        Object.keys(ENDINGS).map((e) => [e, `…because it was too ${e}`]), state.ending, (ending) => ctx.set({ ending })))),
      says, top,
      el('div', { class: 'grid' }, panel('Attention of “it”', lookup), panel('Keys', keyMap)));
    return () => {
      const ending = ENDINGS[state.ending];
      const query = lab.matrix(1, 4, ending.query);
      const { weights } = lab.scaledDotProductAttention(query, keys, keys, { scale: 1 });
      says.textContent = `${ending.says} Query q = [${ending.query.map((x) => formatNumber(x, 0)).join(', ')}].`;
      let best = 0;
      weights.data.forEach((w, i) => { if (w > weights.data[best]) best = i; });
      top.textContent = `“it” puts the most weight (${formatNumber(weights.data[best])}) on “${tokens[best]}”.`;
      lookup.matrix = weights;
      keyMap.matrix = keys;
    };
  },
});
