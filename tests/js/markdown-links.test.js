// Every relative link in the repository's Markdown for readers (README.md, examples/README.md and
// docs/*.md when there) points at a file or folder that exists: a link to a moved section or a
// renamed script is found here, not by a reader. Anchors (#…) and web addresses are not checked.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

const repo = new URL('../../', import.meta.url).pathname;
const docs = existsSync(join(repo, 'docs')) ? readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`) : [];
const FILES = ['README.md', 'examples/README.md', ...docs];

for (const file of FILES) {
  test(`${file}: every relative link resolves`, () => {
    const text = readFileSync(join(repo, file), 'utf8').replace(/```[\s\S]*?```/g, '');  // code is not links
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target)
      .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))
      .map((target) => decodeURI(target.split('#')[0]));
    const missing = targets.filter((target) => !existsSync(join(repo, dirname(file), target)));
    assert.deepEqual(missing, [], `${file} links to paths that do not exist`);
  });
}
