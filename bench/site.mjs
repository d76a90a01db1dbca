// The site's live budget: recompute + redraw after a change must take under 16 ms. Measured in
// headless Chromium on the built site (scripts/build-site.sh), from the input event until every
// component on the page has rendered and the layout is up to date, for the lessons with the most work
// per keystroke: the multi-head lesson (8 per-head 32×32 heatmaps + the average), self-attention, and
// the trained-model lessons (a forward of attnlab-kjv over the prompt: the next-token bars; every
// layer's and head's attention drawn as small multiples). Each lesson twice: served as a static host
// serves it (a first visit: one thread) and as scripts/serve-site.mjs serves it (cross-origin
// isolated: the threaded build on every core).
//   node bench/site.mjs    prints the table (bench/run.mjs puts it in results.md)
import { serverHeaders } from '../site/csp.js';
import { launch } from '../tests/e2e/browser.js';
import { serve } from '../tests/e2e/static-server.js';

const SAMPLES = 40;
const words = 'the animal did not cross the street because it was too tired and the cat sat on the warm mat while rain fell over quiet hills near an old stone bridge'.split(' ');
const verse = 'And God said Let there be light and there was light And God saw the light that it was good and God divided the light from the darkness and the evening and the morning were the first day'.split(' ');

// [lesson, query, label, the words typed]: each sample changes one word of the first 32.
const CHANGES = [
  ['multi-head', 'dModel=64&heads=8', 'multi-head lesson: 32 tokens, d_model 64, 8 heads (9 heatmaps)', words],
  ['self-attention', '', 'self-attention lesson: 32 tokens, d_model 16, 1 head', words],
  ['next-token', '', 'next-token lesson: a 32-word prompt (about 40 tokens) through attnlab-kjv, top-10 bars', verse],
  ['all-heads', '', 'every-head lesson: a 32-word prompt through attnlab-kjv, 16 heads drawn', verse],
];

async function timeEdits(page, text) {
  return page.evaluate(async ({ samples, text }) => {
    const input = document.querySelector('input[type="text"]');
    // Every attnlab component on the page (shadow roots included), each with its pending render.
    const components = () => {
      const found = [];
      const walk = (root) => root.querySelectorAll('*').forEach((n) => {
        if (n.updateComplete) found.push(n);
        if (n.shadowRoot) walk(n.shadowRoot);
      });
      walk(document);
      return found;
    };
    const out = [];
    for (let i = 0; i < samples; i++) {
      const sentence = text.map((w, j) => (j === i % 32 ? `${w}${i}` : w)).slice(0, 32).join(' ');
      const t0 = performance.now();
      input.value = sentence;
      input.dispatchEvent(new Event('input'));
      await Promise.all(components().map((c) => c.updateComplete));
      document.body.getBoundingClientRect();
      out.push(performance.now() - t0);
    }
    return out;
  }, { samples: SAMPLES, text });
}

export async function measureSite() {
  const dist = new URL('../site/dist', import.meta.url).pathname;
  const servers = [['1 thread (static host, first visit)', await serve(dist)],
    ['every core (scripts/serve-site.mjs)', await serve(dist, 0, { headers: serverHeaders() })]];
  const browser = await launch();
  try {
    const rows = [];
    for (const [lesson, query, label, text] of CHANGES) {
      for (const [how, server] of servers) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        await page.goto(`${server.url}/lessons/${lesson}.html?${query}`);
        await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60000 });
        const threaded = await page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.includes('-mt-')));
        if (threaded !== (server === servers[1][1])) throw new Error(`${lesson} (${how}): the ${threaded ? 'threaded' : 'single-threaded'} build loaded`);
        const times = (await timeEdits(page, text)).sort((a, b) => a - b);
        const median = times[Math.floor(times.length / 2)];
        rows.push(`| ${label} | ${how} | ${median.toFixed(2)} | ${times[0].toFixed(2)}–${times.at(-1).toFixed(2)} | ${median < 16 ? 'yes' : 'no'} |`);
        await page.close();
      }
    }
    return ['| change | served | median ms | min–max ms | under 16 ms |', '|---|---|---|---|---|', ...rows].join('\n');
  } finally {
    await browser.close();
    for (const [, server] of servers) await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await measureSite());
