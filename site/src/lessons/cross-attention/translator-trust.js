// What the cross-attention lesson tells a learner about the translator's limits: the English words it
// knows (buttons that add a word to the sentence), the learner's words with the unknown ones and the one
// where the sentence leaves the model's grammar marked, and a plain verdict when a translation cannot be
// trusted. Everything comes from translate()'s report (grammar, unknownWords, truncated, unattendedWords)
// and the model's sourceWordKinds: nothing here knows the grammar itself.
import { el, formatNumber, isolated, lastLeftOut } from '../../dom.js';

const quoted = (words) => words.map((w) => `“${isolated(w)}”`).join(', ');
const capitalised = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// "a verb agreeing with a singular subject (sees, eats, likes, …)"
function kindWithExamples({ kind, words }, shown = 3) {
  if (words.length === 0) return kind;
  return `${kind} (${words.slice(0, shown).join(', ')}${words.length > shown ? ', …' : ''})`;
}

// kinds: model.sourceWordKinds; box: the sentence's text input. A closed <details> so the page stays
// short on a phone; each word is a button (keyboard and touch alike) that adds it to the end of the box.
export function knownWords(kinds, box) {
  const count = kinds.reduce((n, k) => n + k.words.length, 0);
  const add = (word) => {
    box.value = `${box.value.trimEnd()} ${word}`.trimStart();
    box.dispatchEvent(new Event('input', { bubbles: true }));
  };
  return el('details', { class: 'known-words' },
    el('summary', { text: `The ${count} English words the model knows (choose one to add it to the sentence)` }),
    kinds.map(({ kind, words }) => el('div', { class: 'word-kind', role: 'group', 'aria-label': capitalised(kind) },
      el('span', { class: 'word-kind-name', text: `${capitalised(kind)}:` }),
      words.map((word) => el('button', { type: 'button', class: 'word-chip', text: word, on: { click: () => add(word) } })))));
}

// The words the model read, each marked: unknown (read as <unk>), or where the sentence leaves the grammar.
// words: the sentence's words; read: how many of them the model reads (its maxLen): the rest are listed
// apart, as left out, so the list never shows more words than the model read.
export function markedWords(node, words, unknownWords, grammar, read = words.length) {
  const unknown = new Set(unknownWords);
  const left = words.slice(read);
  const leftOut = left.length ? el('span', { class: 'left-out', text: `Left out, past the ${read} words it reads: ${left.join(' ')}.` }) : null;
  node.replaceChildren(el('span', { class: 'field-label', text: 'The words the model reads: ' }), ...words.slice(0, read).flatMap((word, i) => {
    const notes = [unknown.has(word) ? 'not a word it knows' : '', grammar && i === grammar.position ? 'its grammar ends here' : '']
      .filter(Boolean);
    const chip = el(notes.length ? 'mark' : 'span', { class: `read-word${unknown.has(word) ? ' unknown' : ''}` +
      `${grammar && i === grammar.position ? ' off-grammar' : ''}`, text: word });
    if (notes.length) chip.append(el('span', { class: 'sr-only', text: ` (${notes.join('; ')})` }));
    return [chip, ' '];
  }), leftOut);
  node.hidden = words.length === 0;
}

// The verdict on one translation, in a learner's words: '' when nothing says it should not be trusted.
export function trustVerdict(t, example) {
  const reasons = [];
  const words = t.sourceTokens;
  const { grammar } = t;
  if (grammar && !grammar.inGrammar) {
    const expected = grammar.expected.map((k) => kindWithExamples(k)).join(', or ');
    const shape = `The model learned only sentences built like “${example}”: who or what, does what, to whom or what, ` +
      'and sometimes where (“… in the garden”), from the words listed under the box.';
    const allWords = [...words, ...Array(t.truncated?.dropped ?? 0).fill(null)];
    reasons.push(grammar.position >= allWords.length
      ? `${shape} Your sentence stops too early: after “${isolated(words.at(-1))}” it expected ${expected}.`
      : `${shape} Your sentence leaves that pattern at word ${grammar.position}${words[grammar.position] ? `, “${isolated(words[grammar.position])}”` : ''}: ` +
        `there it expected ${expected}.`);
  }
  if (t.unknownWords.length) reasons.push(`It does not know ${quoted(t.unknownWords)}: it read ${t.unknownWords.length === 1 ? 'it' : 'each'} as “unknown”.`);
  if (t.truncated) reasons.push(`It reads ${t.truncated.kept} words at most: ${lastLeftOut(t.truncated.dropped, 'word', 'not translated')}.`);
  // Unattended words alone are no reason: a sentence of the grammar translated exactly can leave a size
  // adjective unattended (its French word looks elsewhere), so they are named only beside another reason.
  if (t.unattendedWords.length && reasons.length) {
    reasons.push(`No French word looked mostly at ${quoted(t.unattendedWords.map((w) => w.word))}, so the translation ` +
      `has probably left ${t.unattendedWords.length === 1 ? 'it' : 'them'} out. (Measured: for each French word, the English word ` +
      'with the largest weight in the last layer’s cross-attention, its heads averaged.)');
  }
  if (!reasons.length) return '';
  // The model's own probability is as high outside its grammar as inside: say what it does not measure.
  reasons.push(`Its probability (${formatNumber(Math.exp(t.logProb), 3)}) says how sure the model is of the French it ` +
    'wrote, not whether that French translates your sentence.');
  return `Don’t trust this translation. ${reasons.join(' ')}`;
}
