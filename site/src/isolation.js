// Threads on static hosts. attnlab runs its threaded build only on a cross-origin-isolated page, and
// only response headers make one. scripts/serve-site.mjs sends them; a static host usually cannot. There
// the site registers public/isolation-sw.js, a service worker that adds the headers to the site's
// responses: the page that registers it stays single-threaded (isolation is decided when a page
// loads), and every page opened after it (the next lesson, a reload) is isolated and uses every core.
// No reload is forced on the learner. The results are the same numbers either way.
import { isolationWorkerUrl } from './worker-url.js';

export function offerIsolation() {
  if (globalThis.crossOriginIsolated || !globalThis.isSecureContext || !('serviceWorker' in navigator)) return;
  // After the page is interactive, so that registering never delays the lesson.
  const register = () => navigator.serviceWorker.register(isolationWorkerUrl()).catch((error) => {
    console.warn(`attnlab site: no service worker, so no threads on this host (${error?.message ?? error})`);
  });
  if (document.readyState === 'complete') setTimeout(register, 0);
  else addEventListener('load', () => setTimeout(register, 0), { once: true });
}
