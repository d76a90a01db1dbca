// Cross-attention: the page translates the learner's sentence (greedy or beam 4) and shows every layer's
// and head's cross-attention, rows the French words read, columns the English words; computed here with
// the package's translator.
let translator = null;
export const prepared = async (lab) => (translator ??= await lab.loadBuiltinTranslator());

export const states = [
  {},
  { sentence: 'The boys like the big red apples!' },
  { sentence: 'a dog sees the small black cat', beam: '4' },
  { sentence: 'the zebra eats the books' },  // an unknown word, read as <unk>
  { sentence: '  ?! ' },  // no words: the page translates its default
];

export async function expected(lab, state) {
  const { model } = await prepared(lab);
  const text = model.sourceTokenizer.encode(state.sentence).words.length ? state.sentence : 'the small cat sees the red car';
  const t = model.translate(text, { beam: Number(state.beam) });
  return {
    // A sum of one log-softmax value per word, each the difference of two float32 numbers of size ~10
    // (a logit and the log of the sum): about 1e-6 apiece, up to 15 words.
    'log-probability': { values: [t.logProb], absolute: 1.5e-5 },
    ...Object.fromEntries(t.crossAttention.map((heads, l) =>
      [`cross-attention, layer ${l} (head, French word, English word)`, heads.flatMap((m) => Array.from(m.data))])),
  };
}
