// A Llama-family checkpoint folder as Hugging Face saves it (config.json, model.safetensors or its shards,
// tokenizer.json): SmolLM2, Qwen2.5, Mistral, Llama 3 — or attnlab's own. Run: node main.js <folder>
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from 'attnlab';

const folder = process.argv[2];
const files = Object.fromEntries(readdirSync(folder).map((name) => [name, readFileSync(join(folder, name))]));
const lab = await init({ memoryBudget: 2 ** 31 });  // a 135M-parameter model needs ~0.6 GiB as float32
const { model, tokenizer, family } = await lab.loadModel(files);
if (family === 'gpt2') throw new Error(`${folder} holds a GPT-2: its model is a GPTModel (see "GPT module")`);

const { numHeads, numKeyValueHeads, kvCacheBytesPerToken } = model.config;
console.log(`${family}: ${numHeads} query heads share ${numKeyValueHeads} key/value heads; ` +
            `the KV cache keeps ${kvCacheBytesPerToken} bytes per token`);
const ids = tokenizer.encode('In the beginning God created', { addSpecialTokens: false });
console.log('ids:', [...ids].join(' '));
const { cache } = model.runWithCache(ids);
console.log('keys after RoPE, layer 0:', cache.get('blocks.0.attn.hook_rot_k').shape.join(' × '));
// The logit lens at the last token: the word each layer's residual stream already favours.
const lens = model.logitLens(ids, { position: ids.length - 1, k: 1 });
console.log('logit lens:', lens.rows.map(({ top }) => JSON.stringify(tokenizer.decode([top[0].id]))).join(' → '));
// Streaming with attention sinks: the first 4 tokens and the last 60 stay in the cache.
const { tokens } = model.generate(ids, { maxTokens: 8, temperature: 0.8, seed: 1, sinks: 4, window: 60 });
console.log('generated:', JSON.stringify(tokenizer.decode(tokens)));
