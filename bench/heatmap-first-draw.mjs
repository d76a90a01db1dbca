// <attn-heatmap>'s first draw of a large matrix, in headless Chromium (issue 41, item 7): a fresh
// element is given a 2000 × 2000 matrix and the time until it has drawn (its updateComplete, one
// main-thread task: the render runs in a microtask) is measured, with the longest task the page's
// PerformanceObserver saw. Weights on the sequential palette (YlOrRd, [0, 1]) and signed values on the
// diverging one (RdBu); medians of RUNS fresh elements each.
//   node bench/heatmap-first-draw.mjs [bundle.js]   default: web/dist/components.js (scripts/build-components.sh)
// The bundle is served from the repository, so a bundle built from another commit can be put beside it.
import { relative, resolve } from 'node:path';

import { launch } from '../tests/e2e/browser.js';
import { serve } from '../tests/e2e/static-server.js';

const RUNS = 7;
const N = 2000;
const repo = new URL('../', import.meta.url).pathname;

// Runs in the page: RUNS fresh heatmaps of an N × N matrix on `palette`; each one's draw time and
// the longest task seen while it drew.
async function firstDraws({ bundle, runs, n, palette }) {
  await import(bundle);
  await customElements.whenDefined('attn-heatmap');
  const longest = { ms: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longest.ms = Math.max(longest.ms, entry.duration);
  }).observe({ type: 'longtask', buffered: false });
  // A causal, attention-like pattern: every value distinct enough that no colour repeats by accident.
  const data = new Float32Array(n * n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const v = c <= r ? ((r * 7919 + c * 104729) % 10007) / 10007 : 0;
      data[r * n + c] = palette === 'RdBu' ? 4 * v - 2 : v;
    }
  }
  const out = [];
  for (let i = 0; i < runs; i++) {
    const heatmap = document.createElement('attn-heatmap');
    heatmap.setAttribute('palette', palette);
    document.body.append(heatmap);
    await new Promise((done) => setTimeout(done, 50)); // let the element settle (ResizeObserver) first
    longest.ms = 0;
    const t0 = performance.now();
    heatmap.matrix = { rows: n, cols: n, data };
    await heatmap.updateComplete;
    const drawn = performance.now() - t0;
    // Long tasks are reported after they end: wait for the next frame and a task for the entry.
    await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
    out.push({ drawn, longTask: longest.ms });
    heatmap.remove();
  }
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function measureFirstDraw(bundlePath = 'web/dist/components.js') {
  const server = await serve(repo);
  const browser = await launch();
  try {
    const rows = [];
    for (const palette of ['YlOrRd', 'RdBu']) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${server.url}/bench/blank.html`);
      const bundle = `/${relative(repo, resolve(repo, bundlePath))}`;
      const runs = await page.evaluate(firstDraws, { bundle, runs: RUNS, n: N, palette });
      const drawn = runs.map((r) => r.drawn);
      const tasks = runs.map((r) => r.longTask);
      // The Long Tasks API reports only tasks over 50 ms.
      const longest = median(tasks);
      rows.push(`| ${N} × ${N}, ${palette} | ${median(drawn).toFixed(0)} | ${Math.min(...drawn).toFixed(0)}–${Math.max(...drawn).toFixed(0)} `
        + `| ${longest ? longest.toFixed(0) : 'none over 50'} |`);
      await page.close();
    }
    return [`${bundlePath}, medians of ${RUNS} fresh elements:`, '',
      '| matrix | first draw, median ms | min–max ms | longest task, median ms |', '|---|---|---|---|', ...rows].join('\n');
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await measureFirstDraw(process.argv[2]));
