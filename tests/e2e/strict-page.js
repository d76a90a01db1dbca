// Helpers for csp.test.js and hostile-input.test.js: the built site served with its
// Content-Security-Policy header, a page opened with every CSP violation, console error, page error
// and dialog recorded, and one look at what the page shows.
import { serverHeaders } from '../../site/csp.js';
import { LESSONS } from '../../site/src/lessons.js';
import { serve } from './static-server.js';

export const DIST = new URL('../../site/dist/', import.meta.url).pathname;
export const SLUGS = LESSONS.map((l) => l.slug);

// site/dist on a free port, every response carrying the policy and isolation headers, exactly as
// scripts/serve-site.mjs sends them.
export const serveStrict = () => serve(DIST, 0, { headers: serverHeaders });

// A page that records console errors, page errors, dialogs and CSP violations in `problems` (each
// violation once: the <meta> and the header policy both report it when read with takeViolations).
// visit(url) navigates it (or, with `fulfill`, answers its own request: route.fulfill's options),
// empties `problems` and waits until the lesson has computed and drawn. One page for many visits
// keeps Chromium's caches warm: a visit takes a third of the time of a fresh page.
export async function strictPage(browser, { viewport = { width: 1200, height: 900 } } = {}) {
  const page = await browser.newPage({ viewport });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.type()} ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.effectiveDirective} refused ${e.blockedURI || 'inline'} ${e.sample}`);
    });
  });
  const visit = async (url, { fulfill } = {}) => {
    if (fulfill) await page.route((u) => u.href === url, (route) => route.fulfill(fulfill), { times: 1 });
    problems.length = 0;
    const response = await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 20000 });
    await settle(page);
    return response;
  };
  return { page, problems, visit };
}

// A new strictPage that has visited `url`.
export async function openStrict(browser, url, options = {}) {
  const strict = await strictPage(browser, options);
  await strict.visit(url, options);
  return strict;
}

// Two animation frames: the components draw on the next frame after a change.
export const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// The CSP violations reported since the last call.
export const takeViolations = (page) => page.evaluate(() => [...new Set(window.__violations.splice(0))]);

// What the page shows, searching shadow roots too:
// - injected: elements or attributes that could run code (img, iframe, script without src, on* attributes,
//   javascript: links), which the site itself never creates;
// - heatmaps: each visible <attn-heatmap>'s caption, whether its cells' canvas has paint, and
//   whether its matrix holds a NaN;
// - nanText: any "NaN" or "undefined" in the visible text;
// - error: the lesson's error box, if shown; notices: the corrections read from the URL.
export function inspect(page) {
  return page.evaluate(() => {
    const roots = [document];
    const elements = [];
    for (let i = 0; i < roots.length; i++) {
      for (const n of roots[i].querySelectorAll('*')) {
        elements.push(n);
        if (n.shadowRoot) roots.push(n.shadowRoot);
      }
    }
    const codeAttribute = (a) => /^on/i.test(a.name) ||
      (['href', 'src', 'xlink:href', 'action', 'formaction'].includes(a.name) && /^\s*javascript:/i.test(a.value));
    const injected = elements.filter((n) => ['IMG', 'IFRAME', 'OBJECT', 'EMBED'].includes(n.tagName) ||
      (n.tagName === 'SCRIPT' && !n.src) || [...n.attributes].some(codeAttribute)).map((n) => n.outerHTML.slice(0, 120));
    const heatmaps = elements.filter((n) => n.tagName === 'ATTN-HEATMAP' && n.matrix && n.checkVisibility()).map((h) => {
      const canvas = h.shadowRoot.querySelector('canvas');
      let painted = false;
      if (canvas && !canvas.hidden && canvas.width > 0 && canvas.height > 0) {
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 3; i < pixels.length && !painted; i += 4 * 31) painted = pixels[i] > 0;
      }
      return { caption: String(h.caption ?? ''), painted, nan: Array.from(h.matrix.data).some(Number.isNaN) };
    });
    const shadowText = roots.slice(1).map((r) => [...r.childNodes].filter((c) => c.nodeName !== 'STYLE').map((c) => c.textContent).join(' '));
    // The code panels are left out: a PyTorch program quotes the learner's sentence as they typed it and
    // may name NaN on purpose (masking's all-blocked row); so is prose a lesson marks as naming NaN on
    // purpose (data-mentions-nan: what PyTorch gives where attnlab gives 0). What is checked is what the
    // page computed.
    const code = [...document.querySelectorAll('.code pre, [data-mentions-nan]')].map((node) => node.innerText);
    const text = [code.reduce((all, c) => all.replace(c, ''), document.body.innerText), ...shadowText].join('\n');
    const errorBox = document.querySelector('.error');
    // What else a lesson draws: probability bars, or (the model picker) file inputs.
    const otherFigures = document.querySelectorAll('.bars li, input[type="file"]').length;
    return {
      injected,
      heatmaps,
      otherFigures,
      nanText: text.match(/.{0,30}\b(NaN|undefined)\b.{0,30}/)?.[0] ?? null,
      error: errorBox && !errorBox.hidden ? errorBox.textContent : null,
      notices: [...document.querySelectorAll('.notice')].map((n) => n.textContent),
      pwned: window.__pwned ?? null,
    };
  });
}

// Asserts that `seen` (inspect's result) shows a healthy page: something drawn, nothing injected,
// every heatmap painted with no NaN, no NaN/undefined text, no error box.
export function assertHealthy(assert, seen, where) {
  assert.deepEqual(seen.injected, [], `${where}: injected markup`);
  assert.equal(seen.pwned, null, `${where}: injected code ran`);
  assert.ok(seen.heatmaps.length + seen.otherFigures > 0, `${where}: no heatmap (or bars, or file picker) shown`);
  for (const h of seen.heatmaps) {
    assert.ok(h.painted, `${where}: heatmap “${h.caption}” is blank`);
    assert.ok(!h.nan, `${where}: heatmap “${h.caption}” holds NaN`);
  }
  assert.equal(seen.nanText, null, `${where}: the page shows “${seen.nanText}”`);
  assert.equal(seen.error, null, `${where}: the page shows an error`);
}
