// The "Your own model" page with a Llama-family folder (issue 50, item 5), DOM-free: the parameters and
// memory it says a folder needs, from config.json and the weights' headers, are the package's own count
// (every fixture family: Llama with GQA, sharded, Qwen2's biases, Mistral's window, attnlab-kjv-llama) and
// where the package refuses; the package's refusals of a folder become the page's words naming the file;
// the Llama tokenizer behind the GPT tokenizer's calls spells tokens as the lessons need.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { GiB, headerValues, llamaLoadingNeed, llamaMemoryAdvice, llamaSizes, readCheckpointHeader, sizeText } from '../../site/src/lessons/your-model/model-memory.js';
import { describeConfig, keyValueHeadOf, llamaTokenizer, modelShape } from '../../site/src/model-family.js';
import { tokenLabel } from '../../site/src/token-label.js';
import { folderWords } from '../../site/src/lessons/your-model/errors.js';
import { lab as loadLab } from './helpers.js';

const BUDGETS = [GiB / 2, GiB, 2 * GiB];
const FIXTURES = new URL('../fixtures/llama/', import.meta.url);
const KJV_LLAMA = new URL('../../web/models/kjv-llama/', import.meta.url);
const kjvTokenizer = readFileSync(new URL('kjv_vocab_folder/tokenizer.json', FIXTURES));

// A folder as { name: bytes }: the fixture's files (expected.json left out) and a tokenizer.json.
function folder(dir) {
  const files = {};
  for (const name of readdirSync(dir)) if (/\.(json|safetensors)$/.test(name) && name !== 'expected.json') files[name] = readFileSync(new URL(name, dir));
  files['tokenizer.json'] ??= kjvTokenizer;
  return files;
}

const FOLDERS = [...['llama_gqa', 'llama_mha_sharded', 'qwen2_bias', 'mistral_window'].map((name) => [name, new URL(`${name}/`, FIXTURES)]),
  ['kjv-llama', KJV_LLAMA]];

test('the parameters the page counts from config.json are the package\'s, and the weights\' headers hold as many values', async () => {
  const lab = await loadLab(true);
  for (const [name, dir] of FOLDERS) {
    const files = folder(dir);
    const sizes = llamaSizes(JSON.parse(files['config.json']));
    const { model, tokenizer } = await lab.loadModel(files);
    assert.equal(sizes.parameters, model.config.parameterCount, name);
    assert.equal(sizes.numKeyValueHeads, model.config.numKeyValueHeads, name);
    let values = 0;
    for (const file of Object.keys(files).filter((f) => f.endsWith('.safetensors'))) {
      values += headerValues(await readCheckpointHeader(new Blob([files[file]]))).values;
    }
    assert.equal(values, sizes.parameters, `${name}: the files' values`);
    model.dispose();
    tokenizer.dispose();
  }
});

test('the need the page says is where the package refuses: a budget below 4 bytes a parameter is refused, and the page\'s words say what to choose', async () => {
  const lab = await loadLab(true);
  const files = folder(KJV_LLAMA);
  const { parameters } = llamaSizes(JSON.parse(files['config.json']));
  const need = llamaLoadingNeed(parameters);
  const advice = llamaMemoryAdvice({ name: 'kjv-llama', parameters, fileBytes: files['model.safetensors'].length, values: parameters,
    dtypes: ['F16'], budget: GiB, budgets: BUDGETS });
  assert.match(advice, new RegExp(`^kjv-llama has ${parameters.toLocaleString('en')} parameters: loading it takes about ${sizeText(need).replace('.', '\\.')} .*in F16.*within the 1 GiB memory budget\\.$`));
  // A BF16 folder: the budget is asked for float32, and the page says the matrices then take half of it.
  assert.match(llamaMemoryAdvice({ name: 'bf16', parameters: 1e6, fileBytes: 2e6, values: 1e6, dtypes: ['BF16'], budget: GiB, budgets: BUDGETS }),
    /^bf16 has 1,000,000 parameters: loading it takes about 3\.815 MiB \(4 bytes each as float32, as the package counts them before reading a weight; the BF16 matrices then stay BF16 in memory, about 1\.907 MiB; /);
  // A 1B-parameter Llama in BF16: more than 2 GiB as float32, more than a tab holds.
  assert.match(llamaMemoryAdvice({ name: 'big', parameters: 1.2e9, fileBytes: 2.4e9, values: 1.2e9, dtypes: ['BF16'], budget: GiB, budgets: BUDGETS }),
    /more than the largest memory budget this page offers \(2 GiB\), the most a browser’s WebAssembly memory can hold\. This model is too large to run here\./);
  try {
    lab.setMemoryBudget(Math.floor(need * 0.9));
    const refusal = await lab.loadModel(files).then(() => null, (error) => error.message);
    assert.match(refusal, /the parameters need .* GiB as float32, more than the memory budget/);
    assert.match(folderWords(refusal, { budgets: BUDGETS }), /^The model in config\.json needs about .* for its weights as float32, more than the .* chosen under Memory budget\. Choose 512 MiB under Memory budget and press Load again\.$/);
  } finally {
    lab.setMemoryBudget(GiB);
  }
});

test('every refusal of a broken folder reads in the page\'s words, naming the file to pick again', async () => {
  const lab = await loadLab(true);
  const good = folder(KJV_LLAMA);
  const config = JSON.parse(good['config.json']);
  const cases = [
    [{ 'model.safetensors': good['model.safetensors'], 'tokenizer.json': good['tokenizer.json'] }, /^There is no config\.json among the files picked/],
    [{ ...good, 'config.json': '{oops' }, /^The file “config\.json” could not be read as a model’s configuration/],
    [{ ...good, 'config.json': '{"model_type": "bert"}' }, /^“config\.json” says model_type 'bert': this page runs Llama, Qwen2, Mistral or SmolLM2 models/],
    [{ 'config.json': good['config.json'], 'model.safetensors': good['model.safetensors'] }, /^There is no tokenizer\.json among the files picked/],
    [{ 'config.json': good['config.json'], 'tokenizer.json': good['tokenizer.json'] }, /^There is no model\.safetensors/],
    [{ ...good, 'model.safetensors': good['model.safetensors'].subarray(0, 100000) }, /^“model\.safetensors” is cut short/],
    [{ ...good, 'model.safetensors': Buffer.from('not a checkpoint at all') }, /^“model\.safetensors” is not a \.safetensors file/],
    [{ ...good, 'config.json': JSON.stringify({ ...config, intermediate_size: 600 }) }, /^“model\.safetensors” and “config\.json” do not match: the tensor 'model\.layers\.0\.mlp\.gate_proj\.weight' has shape/],
    [{ ...good, 'config.json': JSON.stringify({ ...config, num_hidden_layers: 5 }) }, /^“model\.safetensors” and “config\.json” do not match: the checkpoint has no tensor/],
    [{ ...good, 'tokenizer.json': '{"model": {"type": "WordPiece"}}' }, /^“tokenizer\.json” uses a tokenizer this page cannot read/],
    [{ ...good, 'tokenizer.json': 'nope' }, /^“tokenizer\.json” is not a tokenizer\.json file/],
    [{ ...good, 'model.safetensors.index.json': '{"weight_map": {"model.norm.weight": "model-00001-of-00002.safetensors"}}' },
      /^“model\.safetensors\.index\.json” names the shard “model-00001-of-00002\.safetensors”, which is not among the files picked/],
  ];
  for (const [files, words] of cases) {
    const message = await lab.loadModel(files).then(() => 'loaded', (error) => error.message);
    assert.match(folderWords(message, { budgets: BUDGETS }), words, message);
  }
});

test('one view of both families: the shape in the GPT\'s names, the key/value head each query head reads, the Llama tokenizer behind the GPT tokenizer\'s calls', async () => {
  const lab = await loadLab(true);
  const { model, tokenizer } = await lab.loadBuiltinLlama();
  const gpt = await lab.loadBuiltinModel();
  const { numLayers, numHeads, numKeyValueHeads, hiddenSize, maxPositionEmbeddings, vocabSize } = model.config;
  assert.deepEqual(modelShape(model), { family: 'llama', numLayers, numHeads, numKeyValueHeads, dModel: hiddenSize, contextLength: maxPositionEmbeddings, vocabSize });
  assert.equal(modelShape(gpt.model).numKeyValueHeads, gpt.model.config.numHeads);
  assert.equal(modelShape(gpt.model).contextLength, gpt.model.config.contextLength);
  // Hugging Face's repeat_kv: query heads 0, 1 read key/value head 0; 2, 3 read 1.
  assert.deepEqual([0, 1, 2, 3].map((h) => keyValueHeadOf(modelShape(model), h)), [0, 0, 1, 1]);
  assert.match(describeConfig(model), new RegExp(`^a Llama: ${numLayers} layers × ${numHeads} query heads sharing ${numKeyValueHeads} key/value heads, d_model ${hiddenSize}, context ${maxPositionEmbeddings} tokens`));
  assert.match(describeConfig(gpt.model), /^4 layers × 4 heads, d_model 192, context \d+ tokens, vocabulary 4,096$/);
  const adapted = llamaTokenizer(tokenizer);
  const ids = adapted.encodePrompt('In the beginning');
  assert.deepEqual(Array.from(ids), Array.from(tokenizer.encode('In the beginning')));
  assert.equal(Array.from(ids, (id) => tokenLabel(adapted, id)).join(''), 'In·the·beginning');
  assert.equal(adapted.decode(ids), 'In the beginning');
  // The same vocabulary as attnlab-kjv's: the same pieces, spelled the same.
  assert.deepEqual(Array.from(adapted.encode(' Aaron')), Array.from(gpt.tokenizer.encode(' Aaron')));
  assert.deepEqual(Array.from(ids, (id) => tokenLabel(adapted, id)), Array.from(gpt.tokenizer.encode('In the beginning'), (id) => tokenLabel(gpt.tokenizer, id)));
  model.dispose();
  gpt.model.dispose();
});
