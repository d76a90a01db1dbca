// The site's live budget: recompute + redraw after a change must take under 16 ms for up to 32
// tokens, d_model 64, 8 heads. Measured in headless Chromium on the built site (scripts/build-site.sh):
// one edit of the sentence on the multi-head lesson = 8 per-head 32×32 heatmaps + the average, from
// the input event until every heatmap has rendered and the layout is up to date.
import { serverHeaders } from '../site/csp.js';
import { launch } from '../tests/e2e/browser.js';
import { serve } from '../tests/e2e/static-server.js';

const SAMPLES = 40;
const words = 'the animal did not cross the street because it was too tired and the cat sat on the warm mat while rain fell over quiet hills near an old stone bridge'.split(' ');

export async function measureSite() {
  // As scripts/serve-site.mjs serves it: cross-origin isolated, so the lessons run the threaded build.
  const server = await serve(new URL('../site/dist', import.meta.url).pathname, 0, { headers: serverHeaders() });
  const browser = await launch();
  try {
    const rows = [];
    for (const [lesson, query, label] of [
      ['multi-head', 'dModel=64&heads=8', 'multi-head lesson: 32 tokens, d_model 64, 8 heads (9 heatmaps)'],
      ['self-attention', '', 'self-attention lesson: 32 tokens, d_model 16, 1 head'],
    ]) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${server.url}/lessons/${lesson}.html?${query}`);
      await page.waitForFunction(() => document.body.dataset.ready === 'true');
      const times = await page.evaluate(async ({ samples, words }) => {
        const input = document.querySelector('input[type="text"]');
        const heatmaps = () => [...document.querySelectorAll('attn-heatmap')];
        const out = [];
        for (let i = 0; i < samples; i++) {
          const sentence = words.map((w, j) => (j === i % 32 ? `${w}${i}` : w)).slice(0, 32).join(' ');
          const t0 = performance.now();
          input.value = sentence;
          input.dispatchEvent(new Event('input'));
          await Promise.all(heatmaps().map((h) => h.updateComplete));
          document.body.getBoundingClientRect();
          out.push(performance.now() - t0);
        }
        return out;
      }, { samples: SAMPLES, words });
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)];
      rows.push(`| ${label} | ${median.toFixed(2)} | ${times[0].toFixed(2)}–${times.at(-1).toFixed(2)} | ${median < 16 ? 'yes' : 'no'} |`);
      await page.close();
    }
    return ['| change | median ms | min–max ms | under 16 ms |', '|---|---|---|---|', ...rows].join('\n');
  } finally {
    await browser.close();
    await server.close();
  }
}
