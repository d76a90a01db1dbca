// The feature entries — 'attnlab/training', 'attnlab/gpt', 'attnlab/builtin-model', 'attnlab/builtin-llama',
// 'attnlab/builtin-tokenizer', 'attnlab/builtin-training-log', 'attnlab/referent-model',
// 'attnlab/translator' — are imported
// for their effect alone (`import 'attnlab/gpt';`): a bundler then ships that feature's files with the
// app. They export nothing; the calls they serve are the Lab's (index.d.ts).
export {};
