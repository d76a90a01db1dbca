// The first view of a lesson on a slow device (issue 28, item 12): the text and the formula come first,
// the formula already typeset (site/formula-plugin.js does it at build time, so no page ever shows raw
// TeX or loads KaTeX's script), and while attnlab's module and the lesson's model load the lesson body
// says so. The module's .wasm is held back by the test to see that moment; the pages are served with
// the site's policy (csp.js), which the formula's nodes must not break.
// SITE_DIST=folder runs it on another build (default site/dist).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import katex from 'katex';

import { serverHeaders } from '../../site/csp.js';
import { formulaPlugin, typesetLesson } from '../../site/formula-plugin.js';
import { lessonModuleUrl } from '../../site/lesson-files.js';
import { LESSONS } from '../../site/src/lessons.js';
import { launch } from './browser.js';
import { ownModuleOnly, SCREENSHOTS } from './lesson-page.js';
import { serve } from './static-server.js';

const DIST = process.env.SITE_DIST ?? new URL('../../site/dist/', import.meta.url).pathname;
const lessonSource = (slug) => readFileSync(lessonModuleUrl(slug), 'utf8');
// The TeX as the lesson writes it, read from its source (null: the lesson has no formula).
const texOf = (slug) => lessonSource(slug).match(/^\s*formula: String\.raw`([^`]*)`/m)?.[1] ?? null;
const WASM_MESSAGE = 'Loading attnlab’s WebAssembly module…';
// Lessons that run on their own model's module alone (lab: false in page.js): the "it" model's.
const IT_MODEL_MESSAGE = 'Loading the trained “it” model (its module and weights)…';
// What the loading state may say while the .wasm is held: the HTML's message, or, on a lesson whose
// script asks for its own model's module straight away, that model's.
const heldMessages = (slug) => (ownModuleOnly(slug) ? [WASM_MESSAGE, IT_MODEL_MESSAGE] : [WASM_MESSAGE]);

// A lesson module's source after the plugin, imported as a module: its default export.
const evaluate = async (code) => (await import(`data:text/javascript,${encodeURIComponent(code)}`)).default;

describe('formulas typeset at build time (site/formula-plugin.js)', () => {
  test('a lesson\'s String.raw formula becomes { tex, tree }: KaTeX\'s output, its TeX in the MathML annotation', async () => {
    const tex = String.raw`\begin{gathered}\frac{QK^\top}{\sqrt{d_k}}\\` + '\n' + String.raw`\text{a < b}\end{gathered}`;
    const code = `export default {\n  title: 'x',\n  formula: String.raw\`${tex}\`,\n  after: 'y',\n};\n`;
    const out = typesetLesson(code, 'lessons/x.js');
    assert.equal(out.split('\n').length, code.split('\n').length, 'the lines after the formula keep their numbers');
    const lesson = await evaluate(out);
    assert.equal(lesson.after, 'y');
    assert.equal(lesson.formula.tex, tex);
    const [tag, attributes] = lesson.formula.tree;
    assert.equal(tag, 'span');
    assert.equal(attributes.class, 'katex-display');
    const annotation = [];
    const find = (node) => {
      if (typeof node === 'string') return;
      if (node[0] === 'annotation') annotation.push(node);
      node.slice(2).forEach(find);
    };
    find(lesson.formula.tree);
    assert.equal(annotation.length, 1);
    assert.deepEqual(annotation[0][1], { encoding: 'application/x-tex' });
    assert.deepEqual(annotation[0].slice(2), [lesson.formula.tex], 'the TeX, its < unescaped');
    assert.equal(typesetLesson('export default { formula: null };', 'x.js'), null, 'formula: null is left alone');
  });

  test('refuses, naming the file and line: a ${} substitution, TeX KaTeX cannot typeset, a formula that is not a literal', () => {
    const plugin = formulaPlugin();
    const context = { error(message) { throw new Error(message); } };
    const file = '/repo/site/src/lessons/bad/lesson.js';
    const run = (formula) => () => plugin.transform.call(context, `lessonPage({\n  slug: 'bad',\n  formula: ${formula},\n});\n`, file);
    assert.throws(run('String.raw`\\frac{${a}}{b}`'), /bad\/lesson\.js:3: the formula has a \$\{…\} substitution/);
    assert.throws(run('String.raw`\\frac{a}{`'), /bad\/lesson\.js:3: KaTeX cannot typeset the formula: KaTeX parse error/);
    assert.throws(run('String.raw`\\notacommand`'), /bad\/lesson\.js:3: KaTeX cannot typeset/);
    assert.throws(run("'x^2'"), /bad\/lesson\.js:3: a lesson's formula must be a String\.raw/);
    assert.throws(run('TEX'), /bad\/lesson\.js:3: a lesson's formula must be a String\.raw/);
    assert.equal(plugin.transform.call(context, 'const formula = 1;', '/repo/site/src/page.js'), null, 'only lesson modules');
  });
});

describe('the first view of every lesson', () => {
  let server;
  let browser;
  const shown = {};  // slug → the .formula's markup as the page built it

  before(async () => {
    server = await serve(DIST, 0, { headers: serverHeaders() });
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  // Opens a lesson with every .wasm request held (and, with holdModels, the model files too), and
  // releases them by name, never by order (a lesson's HTML may preload another module first, and which
  // request comes first depends on the machine's speed): letGo(module) lets that module's .wasm go on
  // whenever the page asks for it, before or after the call; release() lets everything go. Records
  // page errors, console errors (CSP violations among them) and the script responses.
  async function openHeld(slug, { width = 1200, height = 900, holdModels = false } = {}) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    const problems = [];
    const scripts = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('response', (r) => { if (r.request().resourceType() === 'script') scripts.push(r); });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP: ${e.effectiveDirective} ${e.sample}`));
    });
    const held = [];  // { route, file }: requests waiting for letGo() or release()
    const letThrough = [];  // file-name patterns of the modules let go
    let holding = true;
    const hold = (pattern) => context.route(pattern, (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop();
      if (!holding || letThrough.some((p) => p.test(file))) return route.continue();
      held.push({ route, file });
    });
    await hold(/\.wasm$/);
    if (holdModels) await hold(/\.(safetensors|jsonl?|txt)$/);
    // The build's file name is the module's name, a dash and Vite's 8-character hash.
    const letGo = async (module) => {
      const pattern = new RegExp(`^${module}-[\\w-]{8}\\.wasm$`);
      letThrough.push(pattern);
      for (const entry of held.filter(({ file }) => pattern.test(file))) {
        held.splice(held.indexOf(entry), 1);
        await entry.route.continue();
      }
    };
    const release = async () => {
      holding = false;
      for (const { route } of held.splice(0)) await route.continue();
    };
    await page.goto(`${server.url}/lessons/${slug}.html`);
    return { context, page, problems, scripts, release, letGo };
  }

  // Waits until the lesson is interactive; on a timeout, says what the page showed.
  const ready = async (page, problems = []) => {
    try {
      await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
    } catch (error) {
      const showing = await page.evaluate(() => document.querySelector('main')?.innerText.slice(-300)).catch(() => '?');
      throw new Error(`not ready: ${error.message}; problems: ${problems.join(' | ')}; the page ends: ${showing}`);
    }
  };

  const loadingState = (page) => page.locator('section.lesson-body[aria-busy="true"] > .lesson-loading[role="status"]');

  for (const { slug } of LESSONS) {
    test(`${slug}: the h1 comes with the formula typeset (never its TeX), a loading state until the module is in, no KaTeX script`, async () => {
      const tex = texOf(slug);
      const { context, page, problems, scripts, release } = await openHeld(slug);
      await page.locator('main h1').waitFor();
      const first = await page.evaluate(() => ({
        formulas: document.querySelectorAll('main .formula').length,
        typeset: document.querySelectorAll('main .formula > .katex-display > .katex > .katex-html').length,
        annotation: document.querySelector('main .formula annotation[encoding="application/x-tex"]')?.textContent ?? null,
        code: document.querySelectorAll('main .formula code, .formula-source').length,
        text: document.body.innerText,
        markup: document.querySelector('main .formula')?.innerHTML ?? null,
        // KaTeX's inline styles, as the generated stylesheet's classes (formula-plugin.js): class → declarations.
        styleClasses: Object.fromEntries([...document.styleSheets].flatMap((sheet) => [...sheet.cssRules])
          .filter((rule) => /^\.kx-[0-9a-f]+$/.test(rule.selectorText ?? ''))
          .map((rule) => [rule.selectorText.slice(1), rule.style.cssText.replaceAll(' !important', '')])),
        styleAttributes: document.querySelectorAll('main .formula [style]').length,
        // Each element in the namespace the HTML parser would give it: <svg> and <math> subtrees their own.
        misplaced: [...document.querySelectorAll('main .formula *')].filter((n) => n.namespaceURI !== (n.closest('svg')
          ? 'http://www.w3.org/2000/svg' : n.closest('math') ? 'http://www.w3.org/1998/Math/MathML' : 'http://www.w3.org/1999/xhtml'))
          .map((n) => n.localName),
      }));
      if (tex === null) {
        assert.equal(first.formulas, 0, 'a lesson without a formula shows none');
      } else {
        assert.equal(first.formulas, 1);
        assert.equal(first.typeset, 1, 'the formula is typeset as soon as the h1 is on the page');
        assert.equal(first.code, 0, 'no element holds the formula\'s source');
        assert.equal(first.annotation, tex, 'the TeX is kept in the MathML annotation');
        assert.deepEqual(first.misplaced, [], 'elements in the wrong namespace');
        assert.ok(!first.text.includes(tex), 'the raw TeX is nowhere in the page\'s text');
        assert.equal(first.styleAttributes, 0, 'no style attribute (the policy refuses them): classes instead');
        shown[slug] = { markup: first.markup, styleClasses: first.styleClasses };
      }
      // The module is held: the lesson body says what it waits for.
      const loading = loadingState(page);
      await loading.waitFor({ state: 'visible' });
      assert.ok(heldMessages(slug).includes(await loading.textContent()), await loading.textContent());
      assert.ok((await loading.boundingBox()).height > 40, 'the loading state takes visible room');
      await release();
      await ready(page, problems);
      assert.equal(await page.locator('.lesson-loading').count(), 0, 'the loading state is gone when the lesson is ready');
      assert.equal(await page.locator('section.lesson-body').getAttribute('aria-busy'), null);
      assert.ok(await page.locator('section.lesson-body').evaluate((s) => s.children.length > 0), 'the lesson body is built');
      for (const response of scripts) {
        const body = await response.text().catch(() => '');
        assert.ok(!body.includes('KaTeX parse error'), `KaTeX's script was fetched: ${response.url()}`);
      }
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  test('every lesson\'s HTML holds its first view, so it shows with scripts off: header, h1, introduction, typeset formula, loading state — what the script then builds', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const firstView = () => page.evaluate(() => ({
      title: document.title,
      header: document.querySelector('header.site-header')?.innerText ?? null,
      h1: document.querySelector('main h1')?.textContent ?? null,
      intro: [...document.querySelectorAll('main p.intro')].map((p) => p.textContent),
      formula: document.querySelector('main .formula')?.innerHTML ?? null,
      loading: document.querySelector('section.lesson-body[aria-busy="true"] > .lesson-loading[role="status"]')?.textContent ?? null,
    }));
    const withScripts = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const built = await withScripts.newPage();
    for (const { slug, title } of LESSONS) {
      await page.goto(`${server.url}/lessons/${slug}.html`);
      const shown = await firstView();
      assert.equal(shown.h1, title, `${slug}: the h1 is in the HTML`);
      assert.equal(shown.title, `${title} · attnlab`);
      assert.ok(shown.intro.length >= 1, `${slug}: the introduction is in the HTML`);
      assert.equal(shown.loading, WASM_MESSAGE, `${slug}: the loading state is in the HTML`);
      if (texOf(slug) !== null) assert.match(shown.formula, /class="katex-display"/, `${slug}: the formula, typeset, is in the HTML`);
      if (slug === 'why-attention') await page.screenshot({ path: `${SCREENSHOTS}first-view-${slug}-no-script-390px.png`, fullPage: true });
      // The script builds the same header, heading, introduction and formula in their place.
      await built.goto(`${server.url}/lessons/${slug}.html`);
      await built.waitForFunction(() => document.querySelector('.code-pair'));
      const rebuilt = await built.evaluate(() => ({
        title: document.title,
        header: document.querySelector('header.site-header').innerText,
        h1: document.querySelector('main h1').textContent,
        intro: [...document.querySelectorAll('main p.intro')].map((p) => p.textContent),
        formula: document.querySelector('main .formula')?.innerHTML ?? null,
      }));
      assert.deepEqual({ ...shown, loading: undefined }, { ...rebuilt, loading: undefined }, slug);
    }
    await withScripts.close();
    await context.close();
  });

  test('each formula on the page is KaTeX\'s own rendering of the lesson\'s TeX (same elements, attributes, text; its inline styles as classes with the same declarations)', async () => {
    const slugs = Object.keys(shown);
    assert.ok(slugs.length >= 18, `formulas seen: ${slugs}`);
    const page = await browser.newPage();  // about:blank: no policy, so both can be parsed as HTML
    for (const slug of slugs) {
      const expected = katex.renderToString(texOf(slug), { displayMode: true, output: 'htmlAndMathml', throwOnError: true });
      const differences = await page.evaluate(([{ markup: a, styleClasses }, b]) => {
        const parse = (html) => {
          const div = document.createElement('div');
          div.innerHTML = html;
          return div;
        };
        const out = [];
        const compare = (x, y, path) => {
          if (x.nodeType !== y.nodeType || x.nodeName !== y.nodeName || x.namespaceURI !== y.namespaceURI) {
            out.push(`${path}: ${x.nodeName} vs ${y.nodeName}`);
            return;
          }
          if (x.nodeType === Node.TEXT_NODE) {
            if (x.data !== y.data) out.push(`${path}: “${x.data}” vs “${y.data}”`);
            return;
          }
          // Ours: KaTeX's classes plus one kx- class for its inline style, whose rule holds the same declarations.
          const styleClass = [...(x.classList ?? [])].find((c) => c.startsWith('kx-'));
          const attributes = (n) => [...n.attributes].filter((at) => at.name !== 'xmlns' && at.name !== 'style')
            .map((at) => `${at.name}=${at.name === 'class' ? at.value.split(' ').filter((c) => !c.startsWith('kx-')).join(' ') : at.value}`)
            .filter((at) => at !== 'class=').sort().join(' ');
          if (attributes(x) !== attributes(y)) out.push(`${path}: [${attributes(x)}] vs [${attributes(y)}]`);
          // The same properties, each with the same computed value (a rule writes 0em as 0px, and orders them its own way).
          const [ours, theirs] = [styleClass ? styleClasses[styleClass] ?? 'missing: a class with no rule' : '', y.style?.cssText ?? '']
            .map((cssText) => {
              const probe = document.body.appendChild(document.createElement('span'));
              probe.style.cssText = cssText;
              const names = [...probe.style].sort();
              const computed = getComputedStyle(probe);
              const text = names.map((name) => `${name}: ${computed.getPropertyValue(name)}`).join('; ');
              probe.remove();
              return text;
            });
          if (ours !== theirs) out.push(`${path}: style ${ours} vs ${theirs}`);
          // KaTeX's markup writes adjacent MathML text nodes as one string; the parser makes one node too.
          if (x.childNodes.length !== y.childNodes.length) {
            out.push(`${path}: ${x.childNodes.length} vs ${y.childNodes.length} children`);
            return;
          }
          x.childNodes.forEach((c, i) => compare(c, y.childNodes[i], `${path}/${c.nodeName}[${i}]`));
        };
        compare(parse(a), parse(b), '');
        return out.slice(0, 5);
      }, [shown[slug], expected]);
      assert.deepEqual(differences, [], slug);
    }
    await page.close();
  });

  test('the "it" lessons fetch no main module: their HTML preloads the model\'s own module and weights, which the page then uses (one request each), on a 390 px phone', async () => {
    for (const slug of ['why-attention', 'it-sentence']) {
      assert.ok(ownModuleOnly(slug), `${slug} declares lab: false`);
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
      const page = await context.newPage();
      const requests = [];
      const problems = [];
      page.on('request', (r) => requests.push(new URL(r.url()).pathname));
      page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
      page.on('console', (m) => { if (m.type() === 'error' || /preload/i.test(m.text())) problems.push(`console ${m.type()}: ${m.text()}`); });
      await page.goto(`${server.url}/lessons/${slug}.html`);
      const preloads = await page.evaluate(() => [...document.querySelectorAll('link[rel="preload"][as="fetch"], link[rel="modulepreload"]')]
        .map((l) => new URL(l.href).pathname));
      await ready(page, problems);
      const named = (pattern) => requests.filter((path) => pattern.test(path));
      assert.deepEqual(named(/\/attnlab-(simd|scalar)(-mt)?-[\w-]+\.(wasm|js)$/), [], `${slug}: the main module is not fetched`);
      for (const pattern of [/\/attnlab-referent-simd-[\w-]+\.wasm$/, /\/attnlab-referent-simd-[\w-]+\.js$/, /\/model-[\w-]+\.safetensors$/]) {
        assert.equal(preloads.filter((path) => pattern.test(path)).length, 1, `${slug}: the HTML preloads ${pattern}`);
        assert.equal(named(pattern).length, 1, `${slug}: ${pattern} is fetched once (the preload is the response the page uses)`);
      }
      assert.ok(await page.locator('attn-heatmap').count() > 0, `${slug}: the figure is drawn`);
      assert.deepEqual(problems, []);
      await context.close();
    }
  });

  test('a lesson\'s model: the loading state names it while it loads (the “it” model, attnlab-kjv, training)', async () => {
    // Each lesson with the module it asks for first: let go, the model's own module and files stay held.
    const cases = [['why-attention', 'attnlab-referent-simd', IT_MODEL_MESSAGE],
      ['tokens', 'attnlab-simd', 'Loading attnlab-kjv, the GPT attnlab trained (its module and weights)…']];
    for (const [slug, first, message] of cases) {
      const { context, page, problems, release, letGo } = await openHeld(slug, { holdModels: true });
      const loading = loadingState(page);
      await loading.waitFor({ state: 'visible' });
      assert.ok(heldMessages(slug).includes(await loading.textContent()), await loading.textContent());
      await letGo(first);
      await page.waitForFunction((m) => document.querySelector('.lesson-loading')?.textContent === m, message, { timeout: 30000 });
      assert.equal(await page.locator('section.lesson-body').getAttribute('aria-busy'), 'true');
      await release();
      await ready(page, problems);
      assert.equal(await page.locator('.lesson-loading').count(), 0);
      assert.deepEqual(problems, []);
      await context.close();
    }
    // The training lesson loads the training module once the main one is in (its HTML preloads the
    // training module's .wasm, which stays held).
    const { context, page, problems, release, letGo } = await openHeld('watch-it-learn');
    await loadingState(page).waitFor({ state: 'visible' });
    await letGo('attnlab-simd');
    await page.waitForFunction(() => document.querySelector('.lesson-loading')?.textContent === 'Loading attnlab’s training module…',
      null, { timeout: 30000 });
    await release();
    await ready(page, problems);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('at 390 px and on a desktop (screenshots while loading and of the formula): the formula fits its box (scrolling inside it, not the page), and copying it gives the TeX', async () => {
    for (const [width, height, suffix] of [[390, 844, '-390px'], [1200, 900, '']]) {
      for (const slug of ['why-attention', 'encoder', 'watch-it-learn']) {
        const { context, page, problems, release } = await openHeld(slug, { width, height });
        await loadingState(page).waitFor({ state: 'visible' });
        await page.screenshot({ path: `${SCREENSHOTS}first-view-${slug}-loading${suffix}.png`, fullPage: true });
        await release();
        await ready(page, problems);
        await page.evaluate(() => document.fonts.ready);
        const fit = await page.evaluate(() => {
          const formula = document.querySelector('main .formula');
          const glyphs = formula.querySelector('.katex-html').getBoundingClientRect();
          return { pageOverflow: document.documentElement.scrollWidth - window.innerWidth, glyphsHeight: glyphs.height,
            fontsFailed: [...document.fonts].filter((f) => f.family.startsWith('KaTeX') && f.status === 'error').length };
        });
        assert.ok(fit.pageOverflow <= 0, `${slug} at ${width} px: the page scrolls sideways by ${fit.pageOverflow}px`);
        assert.ok(fit.glyphsHeight > 20, `${slug}: the formula has height ${fit.glyphsHeight}`);
        assert.equal(fit.fontsFailed, 0);
        await page.locator('main .formula').screenshot({ path: `${SCREENSHOTS}first-view-${slug}-formula${suffix}.png` });
        const copied = await page.evaluate(() => {
          const range = document.createRange();
          range.selectNodeContents(document.querySelector('main .formula .katex-html'));
          document.getSelection().removeAllRanges();
          document.getSelection().addRange(range);
          const event = new ClipboardEvent('copy', { clipboardData: new DataTransfer(), bubbles: true, cancelable: true });
          document.querySelector('main .formula .katex-html').dispatchEvent(event);
          return event.clipboardData.getData('text/plain');
        });
        assert.equal(copied, texOf(slug), `${slug}: copying the formula gives its TeX`);
        assert.deepEqual(problems, []);
        await context.close();
      }
    }
  });
});
