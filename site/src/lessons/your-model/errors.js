// The "Your own model" page's words for the package's refusals (DOM-free: the test gives it messages):
// pageWords for a GPT-2 checkpoint's three files, folderWords for a Llama-family folder (lab.loadModel).
// The package writes for a developer: its calls (loadGPT, loadTokenizer), its options (numHeads,
// init({ memoryBudget })), byte offsets. A learner picked three files and set two fields, so the page
// says which file, in which field, and what to change there; the package's own message stays beside it.
import { budgetFor, bytesOf, sizeText } from './model-memory.js';

const quoted = (name) => `“${name}”`;

// message: the AttnLabError's; files: { weights, vocab, merges } the picked files' names; budgets: the
// Memory budget's options (bytes, ascending). → the page's sentence (every refusal gets one).
export function pageWords(message, { weights, vocab, merges }, budgets) {
  const checkpoint = `The checkpoint ${quoted(weights)}`;
  const budget = /needs about ([\d.]+ \w+) .*but the memory budget is ([\d.]+ \w+)/.exec(message);
  if (budget) {
    const [, need, chosen] = budget;
    const enough = budgetFor(bytesOf(need), budgets);
    return `${checkpoint} needs about ${need} of memory to load, more than the ${chosen} chosen under Memory budget. ` +
      (enough === null ? `That is more than the largest budget this page offers (${sizeText(budgets.at(-1))}): this model is too large to run here.`
        : `Choose ${sizeText(enough)} under Memory budget and press Load again.`);
  }
  if (/cut short/.test(message)) {
    return `${checkpoint} is cut short: its header describes more data than the file holds. Was its download finished? ` +
      'Pick the whole file under Checkpoint.';
  }
  if (/not a \.safetensors file|header is not valid JSON|header is .*, not a JSON object|fewer than the 8 of the header length|header length is/.test(message)) {
    return `${checkpoint} is not a .safetensors file (its first bytes are not the format’s header). Pick the model’s ` +
      '.safetensors file under Checkpoint — not a .bin, .pt or .ckpt file, nor one of the tokenizer’s.';
  }
  const heads = /numHeads = (\d+) \(as passed\) differs from the metadata n_head = (\d+)/.exec(message);
  if (heads) {
    return `Heads is ${heads[1]}, but ${quoted(weights)} says it has ${heads[2]} heads (n_head in its metadata). ` +
      'Set Heads to 0 to take the count from the file.';
  }
  if (/number of heads is not in the file's metadata/.test(message)) {
    return `${checkpoint} does not say how many heads it has (no n_head in its metadata). Enter the count under Heads ` +
      '(GPT-2 small: 12) and press Load again.';
  }
  const divides = /(?:d_model|dModel) = (\d+) \(from wte\.weight\) is not divisible by .*?= (\d+)/.exec(message);
  if (divides) {
    return `${checkpoint} has d_model ${divides[1]}, which ${divides[2]} heads cannot share equally. ` +
      'Set Heads to a count that divides it, or to 0 to take the count from the file.';
  }
  if (/^loadGPT:/.test(message)) {
    return `${checkpoint} is not a GPT-2-architecture model this page can load: its tensors are not the ones, or not ` +
      'the shapes, of Hugging Face’s GPT-2 (the package’s message below names the first that differs).';
  }
  const sizes = /the tokenizer has (\d+) tokens but the model's vocabulary is (\d+)/.exec(message);
  if (sizes) {
    return `The vocabulary ${quoted(vocab)} has ${Number(sizes[1]).toLocaleString('en')} tokens, more than the ` +
      `${Number(sizes[2]).toLocaleString('en')} of the checkpoint ${quoted(weights)}: they are not from the same model. ` +
      'Pick the vocab.json and merges.txt that came with the checkpoint.';
  }
  if (/^loadTokenizer:/.test(message)) {
    const file = /merges\.txt|mergesText/.test(message) ? `The merges file ${quoted(merges)}` : `The vocabulary ${quoted(vocab)}`;
    return `${file} could not be read as GPT-2’s tokenizer. Pick the vocab.json under vocab.json and the merges.txt ` +
      'under merges.txt, both from the same model as the checkpoint.';
  }
  return `The files could not be loaded (${quoted(weights)}, ${quoted(vocab)}, ${quoted(merges)}).`;
}

const FAMILIES = 'Llama, Qwen2, Mistral or SmolLM2';

// message: the AttnLabError's for a picked folder (lab.loadModel, gpt-model.js loadPickedFolder); weights:
// the folder's weight file names; budgets as above. → the page's sentence, naming the file at fault.
export function folderWords(message, { weights = ['model.safetensors'], budgets }) {
  const text = message.replace(/^loadModel: /, '');
  const pickAgain = 'Pick the model’s whole folder (or its config.json, tokenizer.json and .safetensors files) again.';
  const weightName = weights.length === 1 ? quoted(weights[0]) : `the weight files (${weights.map(quoted).join(', ')})`;
  const budget = /the parameters need ([\d.]+) GiB as float32, more than the memory budget of ([\d.]+) GiB/.exec(text);
  if (budget) {
    const need = Number(budget[1]) * 2 ** 30;
    const enough = budgetFor(need, budgets);
    return `The model in config.json needs about ${sizeText(need)} for its weights as float32, more than the ` +
      `${sizeText(Number(budget[2]) * 2 ** 30)} chosen under Memory budget. ` +
      (enough === null ? `That is more than the largest budget this page offers (${sizeText(budgets.at(-1))}), the most a browser tab’s ` +
        'WebAssembly memory holds: this model is too large to run here.' : `Choose ${sizeText(enough)} under Memory budget and press Load again.`);
  }
  if (/^no config\.json among the files/.test(text) || /^the file has no tensor 'wte\.weight'/.test(text)) {
    return `There is no config.json among the files picked: without it the page cannot tell which model this is. ${pickAgain}`;
  }
  if (/^config\.json is not JSON|^config\.json has no|^config\.json's ".*" (is|=)|^config\.json is not a JSON object/.test(text)) {
    return `The file “config.json” could not be read as a model’s configuration (${text.replace(/^config\.json('s)? ?/, '')}). ` +
      'Pick the config.json that came with the model.';
  }
  const type = /model_type (.+?) is not supported|model_type "(.+?)" is not supported/.exec(text);
  if (type) {
    return `“config.json” says model_type ${type[1] ?? `'${type[2]}'`}: this page runs ${FAMILIES} models (model_type llama, ` +
      'qwen2 or mistral), and GPT-2 ones through the GPT-2 checkpoint’s three fields below.';
  }
  if (/^hidden_act|^rope_scaling|is not divisible by|is odd: RoPE|must be positive|is negative/.test(text)) {
    return `“config.json” describes a model this page cannot run (${text}). Only the ${FAMILIES} architectures as Hugging Face ` +
      'writes them load here.';
  }
  if (/^no tokenizer\.json among the files/.test(text)) {
    return `There is no tokenizer.json among the files picked: the model’s tokenizer is needed to read your text. ${pickAgain}`;
  }
  if (/^tokenizer\.json is not JSON|^tokenizer\.json is not a JSON object/.test(text)) {
    return '“tokenizer.json” is not a tokenizer.json file (it is not JSON). Pick the tokenizer.json that came with the model.';
  }
  if (/is not supported \(supported: (BPE|ByteLevel|none, NFC|ByteLevel, Split|ByteLevel, TemplateProcessing|Llama 3's)|BPE model's/.test(text)) {
    return `“tokenizer.json” uses a tokenizer this page cannot read (${text}). The page reads byte-level BPE, as GPT-2 and ` +
      'today’s Llama-family models use it.';
  }
  if (/^neither model\.safetensors nor model\.safetensors\.index\.json/.test(text)) {
    return `There is no model.safetensors (nor model.safetensors.index.json with its shards) among the files picked: the weights are needed. ${pickAgain}`;
  }
  const shard = /model\.safetensors\.index\.json names (\S+), which is not among the files/.exec(text);
  if (shard) return `“model.safetensors.index.json” names the shard ${quoted(shard[1])}, which is not among the files picked. ${pickAgain}`;
  if (/^model\.safetensors\.index\.json/.test(text)) {
    return `“model.safetensors.index.json” could not be read (${text.replace(/^model\.safetensors\.index\.json /, '')}). Pick the index that came with the shards.`;
  }
  if (/cut short|was fed \d+ of its/.test(text)) {
    return `${weightName} ${weights.length === 1 ? 'is' : 'are'} cut short: the header describes more data than the file holds. ` +
      'Was the download finished? Pick the whole file again.';
  }
  if (/not a \.safetensors file|header is not valid JSON|header is .*, not a JSON object|fewer than the 8 of the header length|header length is/.test(text)) {
    return `${weightName} ${weights.length === 1 ? 'is' : 'are'} not a .safetensors file (the first bytes are not the format’s header). ` +
      'Pick the model’s .safetensors weights — not a .bin, .pt or .gguf file.';
  }
  if (/^tensor '.*' has shape|^the checkpoint has no tensor|^the checkpoint's tensor|is in two of the files|does not hold it|puts '.*' in/.test(text)) {
    return `${weightName} and “config.json” do not match: ${text.replace(/^tensor /, 'the tensor ')}. Pick the weights and the ` +
      'config.json of the same model.';
  }
  if (/NaN or infinite/.test(text)) return `${weightName} hold a NaN or infinite value (${text}): the model is broken, not readable.`;
  const sizes = /the tokenizer has (\d+) tokens but the model's vocabulary is (\d+)/.exec(text);
  if (sizes) {
    return `“tokenizer.json” has ${Number(sizes[1]).toLocaleString('en')} tokens, more than the ${Number(sizes[2]).toLocaleString('en')} ` +
      'of the model in config.json: they are not from the same model. Pick the tokenizer.json that came with it.';
  }
  if (/not one of the Llama family/.test(text)) {
    return 'This folder holds a GPT-2 model: pick its model.safetensors, vocab.json and merges.txt under “A GPT-2 checkpoint” below instead.';
  }
  return `The folder’s files could not be loaded (${weightName}, “config.json”, “tokenizer.json”).`;
}
