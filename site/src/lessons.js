// The lessons, in teaching order, in four parts: the mechanism on numbers you can edit, inside a GPT
// that attnlab trained, then the experiments that explain what that GPT predicts. The site's navigation and index are built from this list.
// yourModel: the lesson runs on the learner's own model when one is kept (gpt-model.js lessonModel) — true
// for the whole lesson, or the words naming the part that does; the "Your own model" page lists them.
// yourLlama: it runs on a kept Llama-family model too (gpt-model.js lessonModelAnyFamily); the others say
// that they run on attnlab's GPT while a Llama is kept.
export const PARTS = [
  { id: 'mechanism', title: 'The mechanism' },
  { id: 'trained', title: 'Inside a trained model' },
  { id: 'why', title: 'Why the model says what it says' },
  { id: 'modern', title: 'Attention in today’s models' },
];

export const LESSONS = [
  { slug: 'why-attention', title: 'Why attention', part: 'mechanism' },
  { slug: 'step-by-step', title: 'Scaled dot-product attention, step by step', part: 'mechanism' },
  { slug: 'scaling', title: 'Why divide by √d_k', part: 'mechanism' },
  { slug: 'self-attention', title: 'Self-attention on your sentence', part: 'mechanism' },
  { slug: 'multi-head', title: 'Multi-head attention', part: 'mechanism', yourModel: 'its section on a trained model’s heads' },
  { slug: 'shapes', title: 'Shapes: batch, heads and broadcasting', part: 'mechanism' },
  { slug: 'cross-attention', title: 'Cross-attention', part: 'mechanism' },
  { slug: 'masking', title: 'Masking', part: 'mechanism' },
  { slug: 'positions', title: 'Positional encoding', part: 'mechanism' },
  { slug: 'encoder', title: 'Putting it together: the encoder layer', part: 'mechanism' },
  { slug: 'watch-it-learn', title: 'Watch it learn', part: 'mechanism' },
  { slug: 'exercises', title: 'Exercises', part: 'mechanism' },
  { slug: 'tokens', title: 'Tokens: how a GPT reads text', part: 'trained', yourModel: true },
  { slug: 'next-token', title: 'The next token: probabilities and sampling', part: 'trained', yourModel: true, yourLlama: true },
  { slug: 'kv-cache', title: 'Generation and the KV cache', part: 'trained', yourModel: true },
  { slug: 'all-heads', title: 'Every head at once', part: 'trained', yourModel: true, yourLlama: true },
  { slug: 'head-jobs', title: 'What heads do', part: 'trained', yourModel: true },
  { slug: 'ablation', title: 'Knock a head out', part: 'trained', yourModel: true },
  { slug: 'it-sentence', title: 'The “it” sentence, trained', part: 'trained' },
  { slug: 'your-model', title: 'Your own model', part: 'trained' },
  { slug: 'logit-lens', title: 'The logit lens', part: 'why', yourModel: true, yourLlama: true },
  { slug: 'attribution', title: 'Who wrote this logit', part: 'why', yourModel: true },
  { slug: 'patching', title: 'Patching: two prompts side by side', part: 'why', yourModel: true, yourLlama: true },
  { slug: 'induction-circuit', title: 'The induction circuit', part: 'why', yourModel: true },
  { slug: 'induction-forming', title: 'Watch induction heads form', part: 'why' },
  { slug: 'shared-kv', title: 'Shared keys and values: MHA, GQA, MQA', part: 'modern' },
  { slug: 'rotary', title: 'Rotary positions (RoPE)', part: 'modern' },
  { slug: 'windows-and-sinks', title: 'Sliding windows and attention sinks', part: 'modern' },
  { slug: 'flash-attention', title: 'FlashAttention, block by block', part: 'modern' },
];
