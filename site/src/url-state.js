// Lesson state lives in the URL query so a link reproduces the view. Every value from the URL is
// validated against the lesson's schema: out-of-range numbers are clamped, unknown choices and
// malformed values fall back to the default, and each correction is reported so the page can show it.
//
// schema: { key: { type: 'int', min, max, default } | { type: 'enum', values: [...], default }
//                  | { type: 'text', maxLength, default } }
export function readState(schema, search = window.location.search) {
  const params = new URLSearchParams(search);
  const state = {};
  const messages = [];
  for (const [key, rule] of Object.entries(schema)) {
    const raw = params.get(key);
    state[key] = rule.default;
    if (raw === null) continue;
    if (rule.type === 'int') {
      // Digits only; a whole number too large for a double (1e400 written out) reads as ±Infinity
      // and is clamped like any other out-of-range value.
      const value = Number(raw);
      if (!/^-?\d+$/.test(raw.trim())) {
        messages.push(`“${key}” in the link is not a whole number; using ${rule.default}.`);
      } else if (value < rule.min || value > rule.max) {
        state[key] = Math.min(rule.max, Math.max(rule.min, value));
        messages.push(`“${key}” in the link must be between ${rule.min} and ${rule.max}; using ${state[key]}.`);
      } else {
        state[key] = value;
      }
    } else if (rule.type === 'enum') {
      if (rule.values.map(String).includes(raw)) state[key] = typeof rule.default === 'number' ? Number(raw) : raw;
      else messages.push(`“${key}” in the link must be one of ${rule.values.join(', ')}; using ${rule.default}.`);
    } else if (rule.type === 'text') {
      if (raw.length > rule.maxLength) {
        // Cut between characters, never inside an emoji's surrogate pair.
        const end = /[\uD800-\uDBFF]/.test(raw[rule.maxLength - 1]) ? rule.maxLength - 1 : rule.maxLength;
        state[key] = raw.slice(0, end);
        messages.push(`“${key}” in the link was longer than ${rule.maxLength} characters and was cut.`);
      } else {
        state[key] = raw;
      }
    }
  }
  return { state, messages };
}

// Writes the state into the URL without reloading or adding history entries.
export function writeState(state) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) params.set(key, String(value));
  window.history.replaceState(null, '', `${window.location.pathname}?${params}`);
}
