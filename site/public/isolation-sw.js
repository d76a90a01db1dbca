// A service worker for static hosts that cannot send headers (GitHub Pages, a folder on a plain
// web server): it passes every request of the site to the network unchanged and adds the two
// headers that make a page cross-origin isolated (COOP: same-origin, COEP: require-corp) to the
// site's own responses, so the pages it controls get SharedArrayBuffer and attnlab's threaded build.
// It caches nothing. Registered by src/isolation.js only where the page is not isolated already
// (scripts/serve-site.mjs sends the headers itself). The site loads nothing from other origins, so
// require-corp blocks nothing.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (new URL(request.url).origin !== self.location.origin) return;
  // Chromium rejects this combination when a worker fetches it itself (devtools makes such requests).
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith(fetch(request).then((response) => {
    if (response.type === 'opaque' || response.status === 0) return response;
    const headers = new Headers(response.headers);
    headers.set('Cross-Origin-Opener-Policy', 'same-origin');
    headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }));
});
