// A lesson's PyTorch program (site/src/lessons/<slug>/program.py) for the page's settings, DOM-free: the page renders
// it, and the test command (tests/js/snippets.test.js) renders and runs the same text. A line
//   num_heads = 4  # page setting: heads
// is rewritten as `num_heads = <settings.heads as a Python literal>`, comment kept. The file on disk is
// the program for the default settings, so it runs as it stands.
const SETTING = /^(\s*)([A-Za-z_]\w*) = .*?(  # page setting: (\w+))$/;

export function renderSnippet(source, settings = {}) {
  return source.split('\n').map((line, i) => {
    if (!line.includes('# page setting:')) return line;
    const match = SETTING.exec(line);
    if (!match) throw new Error(`snippet line ${i + 1}: a page setting must read "name = value  # page setting: key": ${line}`);
    const [, indent, name, comment, key] = match;
    if (!(key in settings)) throw new Error(`snippet line ${i + 1}: no value for the page setting "${key}"`);
    return `${indent}${name} = ${pythonLiteral(settings[key])}${comment}`;
  }).join('\n');
}

// A JS value as Python source: numbers, strings, booleans, null, arrays (lists) and plain objects (dicts).
export function pythonLiteral(value) {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'float("nan")';
    if (!Number.isFinite(value)) return value > 0 ? 'float("inf")' : '-float("inf")';
    return String(value);  // the shortest text that reads back as this double, which Python reads the same
  }
  if (typeof value === 'string') return JSON.stringify(value);  // a JSON string is a Python string literal
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonLiteral(v)}`).join(', ')}}`;
  throw new TypeError(`no Python literal for ${typeof value}`);
}
