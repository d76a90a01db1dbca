// What the "it" lessons show for a sentence of the trained "it" model (it-sentence and why-attention cases):
// the prediction and its probability, and every head's weights from "it", computed by the package.
let model = null;
export async function referent(lab) {
  model ??= await lab.loadReferentModel();
  return model;
}

export async function referentExpected(lab, choice) {
  const m = await referent(lab);
  const s = m.sentence(choice);
  const out = m.forward(s);
  const predicted = m.vocabulary.indexOf(out.prediction);
  return {
    prediction: [predicted],
    'its probability': [out.probabilities[predicted]],
    ...Object.fromEntries(out.fromIt.map((heads, l) => [`layer ${l}, weights from it (one row per head)`, heads.flatMap((row) => Array.from(row))])),
  };
}
