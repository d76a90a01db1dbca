// Calls into the raw Embind module. A binding reports an error by returning undefined (or a null
// handle) and keeping the core's message; here it becomes an AttnLabError. The core names functions
// in C++ style ("scaled_dot_product_attention:", "MultiHeadAttention::load (out_proj):"); the message
// is shown with the JS names a caller of this package knows.
import { AttnLabError } from './errors.js';

const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const METHOD_NAMES = { load: 'loadWeights' };
// Core functions the package calls under another name.
const FUNCTION_NAMES = {
  attention_output: 'scaledDotProductAttention', hashed_embedding: 'embedTokens',
  multi_head_attention_forward: 'MultiHeadAttention.forward', encoder_layer_forward: 'TransformerEncoderLayer.forward',
};

export function toJsNames(message) {
  return message.replace(/^([A-Za-z_][A-Za-z0-9_]*)(?:::([a-z_]+))?/, (_, owner, method) => {
    if (!method) return FUNCTION_NAMES[owner] ?? camel(owner);
    return `${owner}.${METHOD_NAMES[method] ?? camel(method)}`;
  });
}

// The core's option and config names, as the package's options and model.config spell them: a caller
// who passed { numHeads: 3 } reads "numHeads = 3", not the C++ field num_heads. Math names (d_k, n_q)
// stay, and so does anything quoted (a metadata key or tensor name as the file spells it).
const OPTION_NAMES = {
  d_model: 'dModel', num_heads: 'numHeads', d_ff: 'dFF', num_layers: 'numLayers', context_length: 'contextLength',
  vocab_size: 'vocabSize', max_len: 'maxLen', weight_decay: 'weightDecay', warmup_steps: 'warmupSteps',
  total_steps: 'totalSteps', max_lr: 'maxLr', min_lr: 'minLr', clip_norm: 'clipNorm', repeat_length: 'repeatLength',
  key_padding_mask: 'keyPaddingMask', average_weights: 'averageWeights', override_n_head: 'overrideNumHeads',
};
const OPTION_PATTERN = new RegExp(`'[^']*'|\\b(?:${Object.keys(OPTION_NAMES).join('|')})\\b`, 'g');

export function toJsOptionNames(message) {
  return message.replace(OPTION_PATTERN, (word) => OPTION_NAMES[word] ?? word);
}

// byCaller: the message is named by the package call alone, the core's function name dropped (the GPT
// module, whose calls go through several core functions: "GPT::from_safetensors: …", "parse_safetensors:
// …" and "GPTSession::append: …" read "loadGPT: …" and "GPTSession.append: …").
// budgetSetter: where a caller of this module sets its memory budget, said after a refusal over it.
const LAB_BUDGET_SETTER = 'init({ memoryBudget }) or lab.setMemoryBudget()';
export function makeCaller(raw, { byCaller = false, budgetSetter = LAB_BUDGET_SETTER } = {}) {
  return (fn, body) => {
    const result = body();
    if (result !== undefined && result !== null) return result;
    const core = raw.takeLastError();
    let message = toJsOptionNames(byCaller ? `${fn}: ${core.replace(/^[A-Za-z_][A-Za-z0-9_]*(?:::[a-z_]+)?(?: \([^)]*\))?: /, '')}` : toJsNames(core));
    // The core names its C++ setter; a page's or a Node program's is the package's.
    if (message.includes('but the memory budget is')) message = `${message.replace(' (set_memory_budget raises it)', '')} (${budgetSetter} sets it)`;
    throw new AttnLabError(named(fn, message));
  };
}

// The message as the caller's function names it. The core names the method that ran, and a trace
// runs forward: "MultiHeadAttention.forward: …" from trace() reads "MultiHeadAttention.trace: …".
function named(fn, message) {
  if (message.startsWith(`${fn}:`) || message.startsWith(`${fn} `)) return message;
  // lab.reshape(t, …) runs the core's Tensor::reshape: "reshape: …", not "reshape: Tensor.reshape: …".
  if (message.startsWith(`Tensor.${fn}:`)) return message.slice('Tensor.'.length);
  const owner = fn.split('.')[0];
  const method = new RegExp(`^${owner}\\.[A-Za-z]+(?=[: ])`);
  if (fn !== owner && method.test(message)) return message.replace(method, fn);
  return `${fn}: ${message}`;
}
