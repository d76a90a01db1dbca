// The site under its Content-Security-Policy (site/csp.js), served by scripts/serve-site.mjs: every
// page carries the policy as a <meta> and the server as a header; every page loads, computes and
// draws without a single violation; and the policy is really enforced (eval, inline script, inline
// style, HTML strings and framing are refused).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { headerPolicy, ISOLATION_HEADERS, metaPolicy, POLICY } from '../../site/csp.js';
import { launch } from './browser.js';
import { DIST, inspect, assertHealthy, openStrict, settle, SLUGS, takeViolations } from './strict-page.js';
import { ownModuleOnly } from './lesson-page.js';

const PAGES = ['index.html', ...SLUGS.map((s) => `lessons/${s}.html`)];

// Starts scripts/serve-site.mjs on a free port; resolves to { url, stop() }.
function startServeSite() {
  const script = new URL('../../scripts/serve-site.mjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [script], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`serve-site.mjs exited (${code}): ${out}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = out.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0];
      if (url) resolve({ url, stop: () => child.kill() });
    });
  });
}

describe('the Content-Security-Policy', () => {
  let server;
  let browser;

  before(async () => {
    assert.ok(existsSync(`${DIST}index.html`), 'site/dist is missing: run scripts/build-site.sh (scripts/test.sh does)');
    server = await startServeSite();
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    server?.stop();
  });

  test('allows no inline script and no eval: wasm compilation is the only relaxation', () => {
    assert.deepEqual(POLICY['script-src'], ["'self'", "'wasm-unsafe-eval'"]);
    const all = headerPolicy();
    for (const loose of ["'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", '*', 'http:', 'https:']) {
      assert.ok(!all.split(/[\s;]+/).includes(loose), `the policy allows ${loose}`);
    }
    assert.match(all, /object-src 'none'/);
    assert.match(all, /base-uri 'none'/);
    assert.match(all, /frame-ancestors 'none'/);
    assert.doesNotMatch(metaPolicy(), /frame-ancestors/, 'a <meta> policy ignores frame-ancestors (with a console warning)');
  });

  test('every built page carries it as a <meta> ahead of its scripts and styles, and has no inline script or style', () => {
    for (const file of PAGES) {
      const html = readFileSync(`${DIST}${file}`, 'utf8');
      const metas = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)];
      assert.equal(metas.length, 1, `${file}: one CSP <meta>`);
      assert.equal(metas[0][1], metaPolicy(), file);
      const first = html.search(/<script|<link rel="(stylesheet|modulepreload)"/);
      assert.ok(metas[0].index < first, `${file}: the policy comes after a script or stylesheet it should cover`);
      for (const [tag] of html.matchAll(/<script\b[^>]*>/g)) assert.match(tag, /\ssrc="/, `${file}: inline ${tag}`);
      assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, `${file}: inline style or event handler`);
    }
  });

  test('scripts/serve-site.mjs sends it as a header on pages, assets and errors', async () => {
    const asset = readFileSync(`${DIST}index.html`, 'utf8').match(/src="\.\/(assets\/[^"]+\.js)"/)[1];
    for (const path of ['/', '/index.html', '/lessons/masking.html', `/${asset}`, '/missing.html', '/%E0%A4%A']) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.headers.get('content-security-policy'), headerPolicy(), path);
      for (const [name, value] of Object.entries(ISOLATION_HEADERS)) assert.equal(response.headers.get(name), value, `${path}: ${name}`);
      await response.body?.cancel();
    }
  });

  for (const file of PAGES) {
    test(`${file}: loads, computes and draws with no violation`, async () => {
      const { page, problems } = await openStrict(browser, `${server.url}/${file}`);
      problems.push(...await takeViolations(page));
      assert.deepEqual(problems, []);
      const shown = await page.evaluate(async () => {
        await document.fonts.ready;
        const katexFonts = [...document.fonts].filter((f) => f.family.startsWith('KaTeX'));
        return {
          formula: Boolean(document.querySelector('.formula .katex-html .base')),
          katexLoaded: katexFonts.filter((f) => f.status === 'loaded').length,
          katexFailed: katexFonts.filter((f) => f.status === 'error').map((f) => f.family),
          isolated: globalThis.crossOriginIsolated,
          wasm: performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.split('/').pop()).filter((n) => n.endsWith('.wasm')),
          // :host { display: block } comes from the components' shadow <style>: applied only if the policy allows it.
          unstyled: [...document.querySelectorAll('attn-heatmap, attn-stepper, pe-plot')]
            .filter((n) => getComputedStyle(n).display !== 'block' && !n.hidden && n.checkVisibility()).map((n) => n.tagName),
        };
      });
      // Isolated, so the main and GPT modules are the threaded builds (started from workers that the
      // package's own Trusted Types policy allows); the referent and training modules have one build.
      assert.equal(shown.isolated, true);
      const builds = shown.wasm.filter((name) => /^attnlab-(gpt-)?(simd|scalar)/.test(name));
      assert.deepEqual(builds.filter((name) => !/^attnlab-(gpt-)?simd-mt-/.test(name)), [], `single-threaded builds loaded: ${builds}`);
      const slug = file.match(/^lessons\/([\w-]+)\.html$/)?.[1];
      if (slug && ownModuleOnly(slug)) {
        assert.deepEqual(builds, [], `${file} runs on its model's own module alone: ${shown.wasm}`);
        assert.ok(shown.wasm.some((name) => name.startsWith('attnlab-referent-simd-')), `${file}: ${shown.wasm}`);
      } else if (file !== 'index.html') {
        assert.ok(builds.length > 0, `no main or GPT module loaded: ${shown.wasm}`);
      }
      assert.deepEqual(shown.katexFailed, []);
      assert.deepEqual(shown.unstyled, [], 'a component ignored its stylesheet (site/csp.js lists their hashes)');
      if (file !== 'index.html') {
        // A lesson that computes its first figure in a worker (windows and sinks) draws it when that run ends, after
        // the page is ready: wait for a figure to be there (assertHealthy says so if none ever comes), not for time.
        await page.waitForFunction(() => [...document.querySelectorAll('attn-heatmap')].some((h) => h.matrix && h.checkVisibility()) ||
          document.querySelector('.bars li, input[type="file"]'), null, { timeout: 30000 }).catch(() => {});
        assertHealthy(assert, await inspect(page), file);
        if (file !== 'lessons/exercises.html') {  // the exercises have no formula
          assert.ok(shown.formula, 'the formula is typeset');
          assert.ok(shown.katexLoaded > 0, 'KaTeX fonts loaded');
        }
      }
      assert.deepEqual(await takeViolations(page), []);
      await page.close();
    });
  }

  test('is enforced: eval, inline script, inline style, HTML strings, policies and framing are refused', async () => {
    const { page, problems } = await openStrict(browser, `${server.url}/lessons/self-attention.html`);
    assert.deepEqual(await takeViolations(page), []);
    // Code the page itself runs (a timer callback): page.evaluate's own code is exempt from CSP.
    const attempts = await page.evaluate(() => new Promise((resolve) => setTimeout(() => {
      const tried = {};
      const attempt = (name, f) => {
        try {
          tried[name] = `allowed: ${f()}`;
        } catch (e) {
          tried[name] = e.name;
        }
      };
      attempt('eval', () => eval('1 + 1'));  // eslint-disable-line no-eval
      attempt('Function', () => new Function('return 2')());  // eslint-disable-line no-new-func
      attempt('innerHTML', () => { document.body.insertAdjacentHTML('beforeend', '<img src=x onerror="window.__pwned = 1">'); return 'inserted'; });
      attempt('onclick', () => { document.body.setAttribute('onclick', 'window.__pwned = 2'); return 'set'; });
      attempt('policy', () => trustedTypes.createPolicy('bypass', { createHTML: (s) => s }) && 'created');
      const script = document.createElement('script');
      script.append(document.createTextNode('window.__pwned = 3'));
      document.body.append(script);
      const probe = document.createElement('p');
      probe.setAttribute('style', 'color: rgb(1, 2, 3)');
      document.body.append(probe);
      tried.inlineScript = window.__pwned ?? 'did not run';
      tried.styleAttribute = getComputedStyle(probe).color === 'rgb(1, 2, 3)' ? 'applied' : 'refused';
      probe.style.color = 'rgb(4, 5, 6)';  // CSSOM, which the policy allows (KaTeX and the components use it)
      tried.cssom = getComputedStyle(probe).color;
      resolve(tried);
    })));
    assert.deepEqual(attempts, {
      eval: 'EvalError', Function: 'EvalError', innerHTML: 'TypeError', onclick: 'TypeError', policy: 'TypeError',
      inlineScript: 'did not run', styleAttribute: 'refused', cssom: 'rgb(4, 5, 6)',
    });
    const refused = (await takeViolations(page)).map((v) => v.split(' ')[0]);
    for (const directive of ['require-trusted-types-for', 'trusted-types', 'style-src-attr']) {
      assert.ok(refused.includes(directive), `no ${directive} violation reported: ${refused}`);
    }
    assert.ok(problems.some((p) => /requires 'TrustedScript' assignment/.test(p)), 'Chromium reports the refused script');
    await page.close();

    // frame-ancestors 'none' (header only): another page cannot frame the site.
    const framer = await browser.newPage();
    await framer.setContent(`<iframe src="${server.url}/lessons/masking.html"></iframe>`);
    const frame = framer.frames()[1];
    assert.ok(frame.url().startsWith('chrome-error:'), `the site loaded in a frame: ${frame.url()}`);
    await framer.close();
  });

  test('the components’ SVG and PNG export work under it (PNG via a blob: image)', async () => {
    const { page, problems } = await openStrict(browser, `${server.url}/lessons/masking.html`);
    const heatmap = page.locator('attn-heatmap').first();
    for (const format of ['SVG', 'PNG']) {
      const download = page.waitForEvent('download');
      await heatmap.getByRole('button', { name: `Download heatmap as ${format}` }).click();
      assert.match((await download).suggestedFilename(), new RegExp(`\\.${format.toLowerCase()}$`));
    }
    await settle(page);
    problems.push(...await takeViolations(page));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
