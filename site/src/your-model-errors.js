// The "Your own model" page's words for the package's refusals (DOM-free: the test gives it messages).
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
