// The model part of a trained-model lesson's PyTorch program (site/snippets/trained/gpt2_kjv.py: the
// GPT, its tokenizer and the page's seeded draws), shown folded under the lesson's part of the same
// code block, with links to the three files it reads and a button that copies the whole program (the
// model part first), so what a learner pastes into an empty notebook runs as it is.
import { wholeProgram } from '../snippets/trained/program.js';
import { el } from './dom.js';

// snippet: a lesson's pytorch field; { model: source, files: [{ name, url, what, download? }] } when it has a model
// part, with modelSummary, filesIntro and filesAdvice where the words for attnlab-kjv's GPT alone do not fit.
// → a node, or null for a snippet without a model part.
export function snippetModel(snippet) {
  if (typeof snippet !== 'object' || !snippet?.model) return null;
  const lines = snippet.model.trimEnd().split('\n').length;
  const status = el('span', { class: 'field-hint', role: 'status' });
  const node = el('div', { class: 'code-model' },
    el('details', {},
      el('summary', { text: `The model in ${lines} lines (${snippet.modelSummary ?? 'GPT-2 in PyTorch, its tokenizer and the page’s seeded draws'}): the program starts with it` }),
      el('pre', { tabindex: '0', 'aria-label': 'The model’s code' }, el('code', { text: snippet.model }))),
    el('p', { class: 'code-file' }, snippet.filesIntro ?? 'It reads attnlab-kjv’s three files: ',
      ...snippet.files.flatMap((f, i) => [i ? ', ' : '', el('a', { href: f.url.href, download: f.download ?? f.name, text: f.name }), ` (${f.what})`]),
      '. ', snippet.filesAdvice ?? 'Save them beside your notebook (a GPT-2-format model of your own, with these three names, works too). ',
      el('button', { type: 'button', text: 'Copy the whole program', on: { click: () => copy() } }), ' ', status));
  // The lesson part as shown now (the block's own <pre>), after the model part.
  const copy = async () => {
    const lesson = node.closest('figure')?.querySelector(':scope > pre')?.textContent ?? '';
    try {
      await navigator.clipboard.writeText(wholeProgram(snippet.model, lesson));
      status.textContent = 'Copied: the model, then this lesson’s part.';
    } catch {
      status.textContent = 'This browser refused to copy: open “The model…” above and select both parts instead.';
    }
  };
  return node;
}
