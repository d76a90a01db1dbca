// A text box that must hold exactly one token (a logit, a lens reading belongs to one): its id, or an
// AttnLabError in the learner's words showing how the tokenizer splits the text. `which` names the box;
// `why` is said after the split (what one token is needed for, and what to type instead).
import { AttnLabError } from 'attnlab';

import { isolated } from './dom.js';
import { tokenLabel } from './token-label.js';

export function oneToken(tokenizer, text, which, why) {
  const ids = Array.from(tokenizer.encode(text.toWellFormed()));
  if (ids.length === 1) return ids[0];
  if (ids.length === 0) throw new AttnLabError(`The ${which} box is empty: type one token, such as “ himself” (with its leading space).`);
  throw new AttnLabError(`The ${which} “${isolated(text)}” is not one token: the tokenizer splits it into ${ids.length}, ` +
    `${ids.map((id) => `“${isolated(tokenLabel(tokenizer, id))}”`).join(' + ')}. ${why}`);
}
