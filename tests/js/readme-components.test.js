// web/README.md's component reference against the components themselves: each element's table lists
// exactly the properties components.d.ts declares for it, and every attribute the element observes (and
// no-export where it has download buttons); the theming section names every CSS custom property the
// components read, and counts them right. A property added to an element, its typings or the README
// alone fails here until the three agree.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import test from 'node:test';

import * as elements from '../../web/components/index.js';

const web = new URL('../../web/', import.meta.url).pathname;
const readme = readFileSync(`${web}README.md`, 'utf8');
const typings = readFileSync(`${web}components.d.ts`, 'utf8');

const ELEMENTS = [
  ['attn-heatmap', 'AttnHeatmap'], ['pe-plot', 'PePlot'], ['attn-stepper', 'AttnStepper'],
  ['attn-model-view', 'AttnModelView'], ['attn-head-view', 'AttnHeadView'], ['attn-token-colors', 'AttnTokenColors'],
  ['attn-logit-lens', 'AttnLogitLens'], ['attn-attribution', 'AttnAttribution'],
];

// The first table after the element's heading (### `<tag>` or **`<tag>`**): { properties, attributes }.
// A property cell may hold several names and "(attribute `x`)"; an attribute column, if any, names more.
function readmeTable(tag) {
  const heading = readme.search(new RegExp(`^(### \`<${tag}>\`|\\*\\*\`<${tag}>\`\\*\\*)`, 'm'));
  assert.ok(heading >= 0, `web/README.md has a section for <${tag}>`);
  const table = [];
  for (const line of readme.slice(heading).split('\n').slice(1)) {
    if (line.startsWith('|')) table.push(line);
    else if (table.length) break;
  }
  assert.ok(table.length > 2, `a table follows the <${tag}> heading`);
  const cells = (line) => line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
  const header = cells(table[0]);
  const attributeColumn = header.indexOf('attribute');
  const names = (text) => [...text.matchAll(/`([\w-]+)`/g)].map((m) => m[1]);
  const properties = new Set();
  const attributes = new Set();
  for (const line of table.slice(2)) {
    const row = cells(line);
    const inParens = [...row[0].matchAll(/\(attribute ([^)]*)\)/g)].map((m) => m[1]).join(' ');
    names(row[0].replace(/\(attribute [^)]*\)/g, '')).forEach((n) => properties.add(n));
    names(inParens).forEach((n) => attributes.add(n));
    if (attributeColumn >= 0) names(row[attributeColumn]).forEach((n) => attributes.add(n));
  }
  return { properties, attributes };
}

// The properties (not methods) components.d.ts declares on the element's interface, with `link` from Linkable.
function typedProperties(name) {
  const match = typings.match(new RegExp(`export interface ${name}Element extends ([^{]*)\\{([\\s\\S]*?)\\n\\}`));
  assert.ok(match, `components.d.ts declares ${name}Element`);
  const own = [...match[2].matchAll(/^ {2}(?:readonly )?(\w+)\??:/gm)].map((m) => m[1]);
  return { properties: new Set([...own, ...(/\bLinkable\b/.test(match[1]) ? ['link'] : [])]), exportable: /\bExportable\b/.test(match[1]) };
}

for (const [tag, name] of ELEMENTS) {
  test(`<${tag}>: the README's table, components.d.ts and the element agree`, () => {
    const documented = readmeTable(tag);
    const typed = typedProperties(name);
    assert.deepEqual([...documented.properties].sort(), [...typed.properties].sort(), 'properties: README table vs components.d.ts');
    const expected = new Set([...elements[name].observedAttributes, ...(typed.exportable ? ['no-export'] : [])]);
    const undocumented = [...expected].filter((a) => !documented.attributes.has(a));
    assert.deepEqual(undocumented, [], `attributes <${tag}> reads that its README table does not list`);
  });
}

test('the theming section lists and counts every CSS custom property the components read', () => {
  const sources = readdirSync(`${web}components`).map((f) => readFileSync(`${web}components/${f}`, 'utf8')).join('\n');
  const declared = new Set([...sources.matchAll(/(--attnlab-[\w-]+)\s*:/g)].map((m) => m[1])); // the components' own
  const read = new Set([...sources.matchAll(/--attnlab-[\w-]+/g)].map((m) => m[0]).filter((p) => !declared.has(p)));
  const section = readme.slice(readme.indexOf('### Themes'), readme.indexOf('### `<pe-plot>`'));
  const listed = new Set([...section.matchAll(/^\| `(--attnlab-[\w-]+)` \|/gm)].map((m) => m[1]));
  assert.deepEqual([...listed].sort(), [...read].sort());
  const WORDS = ['No', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine'];
  assert.match(section, new RegExp(`${WORDS[listed.size]} CSS custom properties`), `the sentence says ${WORDS[listed.size].toLowerCase()}`);
});
