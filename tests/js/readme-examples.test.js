// The quick starts the READMEs show are the files in examples/, byte for byte: the examples are what
// the tests run (tests/e2e/examples.test.js, scripts/test-cmake-consumers.sh), so a README block that
// drifted from its file would show code nobody runs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const repo = new URL('../../', import.meta.url).pathname;
const read = (path) => readFileSync(repo + path, 'utf8');
const fenced = (lang, path) => '```' + lang + '\n' + read(path) + '```\n';

const QUICK_STARTS = [
  { readme: 'web/README.md', lang: 'html', example: 'examples/html/index.html' },
  { readme: 'web/README.md', lang: 'js', example: 'examples/node/main.js' },
  { readme: 'web/README.md', lang: 'js', example: 'examples/llama/main.js' },
  { readme: 'README.md', lang: 'cpp', example: 'examples/cpp/main.cpp' },
  { readme: 'README.md', lang: 'cmake', example: 'examples/cpp/CMakeLists.txt' },
];

for (const { readme, lang, example } of QUICK_STARTS) {
  test(`${readme} shows ${example} as it is`, () => {
    assert.ok(read(readme).includes(fenced(lang, example)),
      `${readme} has no \`\`\`${lang} block equal to ${example}: copy the file into the README`);
  });
}

test('the package README shows the page first: its first code after the install command draws a heatmap', () => {
  const readme = read('web/README.md');
  const firstBlocks = [...readme.matchAll(/```(\w+)\n/g)].slice(0, 2).map(([, lang]) => lang);
  assert.deepEqual(firstBlocks, ['sh', 'html']);
  assert.ok(readme.indexOf(fenced('html', 'examples/html/index.html')) < readme.indexOf('\n## Contents'));
});

test('the Vite example is the page of examples/html as an app: the same script, with no import map', () => {
  const page = read('examples/html/index.html');
  const script = page.slice(page.indexOf('<script type="module">\n') + '<script type="module">\n'.length, page.lastIndexOf('</script>'));
  assert.equal(script.replace(/^ {2}/gm, ''), read('examples/vite/main.js'));
});
