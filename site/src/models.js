// The modules and models lessons share.
import { loadReferentModel } from 'attnlab';

// Seeded modules the lessons reuse between updates: one MultiHeadAttention per configuration, kept
// until the configuration changes (construction allocates in the wasm heap; forward calls do not).
export function attentionCache(lab) {
  let key = '';
  let module = null;
  return (config) => {
    const next = JSON.stringify(config);
    if (next !== key) {
      module?.dispose();
      module = null;
      key = '';
      module = new lab.MultiHeadAttention(config);  // may throw AttnLabError (e.g. heads ∤ d_model)
      key = next;
    }
    return module;
  };
}

// The trained "it" encoder, for the lessons that run on it alone (a lesson's prepare(); they declare
// lab: false, so the page loads this model's small module and not attnlab's main one).
export function referentModel(lab, notices, loading) {
  loading('the trained “it” model (its module and weights)');
  return loadReferentModel();
}

// The trained English → French translator, for the cross-attention lesson (a lesson's prepare()).
export function translatorModel(lab, notices, loading) {
  loading('the trained translator (its module and weights)');
  return lab.loadBuiltinTranslator();
}
