// The site's Content-Security-Policy, kept in this one place: site/vite.config.js writes it into
// every built page as a <meta http-equiv>, and scripts/serve-site.mjs sends it as a header together
// with the directives a <meta> cannot carry. tests/e2e/csp.test.js checks that both are in force.
//
// Everything comes from the site's own origin; no inline script, no eval. The exceptions, and why:
// - script-src 'wasm-unsafe-eval': compiling attnlab's .wasm (WebAssembly.instantiateStreaming) is
//   the one thing a CSP counts as eval; the glue is built with -sDYNAMIC_EXECUTION=0, so it needs no
//   JS eval, and 'wasm-unsafe-eval' does not allow any.
// - (no style-src exception: the components style their shadow roots with constructed stylesheets,
//   root.adoptedStyleSheets in web/components/styles.js, which are not inline styles.)
// - img-src data:: the pages' empty favicon (<link rel="icon" href="data:,">).
// - img-src blob:: the components' "PNG" export draws the SVG through an object URL.
// Fonts are KaTeX's, emitted as files (vite.config.js sets assetsInlineLimit 0, so none becomes a
// data: URL). require-trusted-types-for 'script' makes the browser refuse HTML strings in DOM sinks
// (innerHTML and friends): the site builds its DOM with nodes and textContent only (src/dom.js), the
// lessons' formulas too (KaTeX runs at build time, formula-plugin.js; page.js builds its output as
// nodes, its styles through the CSSOM, which style-src does not govern).
// - trusted-types attnlab-worker: the one policy the site may create. Under require-trusted-types-for
//   the Worker constructor takes only a TrustedScriptURL; src/worker-url.js makes one, and only for
//   the bundled training worker's own same-origin URL ("Watch it learn"). No HTML or script policy
//   exists, so every other sink still refuses strings.
// - trusted-types attnlab: the package's own policy (web/lib/loader.js), which makes TrustedScriptURLs
//   for the threaded build's worker files only, so that on this cross-origin-isolated site attnlab can
//   start a worker per core. No other policy name (and no 'default') is allowed.
export const POLICY = {
  'default-src': ["'self'"],
  'script-src': ["'self'", "'wasm-unsafe-eval'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'require-trusted-types-for': ["'script'"],
  'trusted-types': ['attnlab-worker', 'attnlab'],
};

// Only an HTTP header can forbid framing (a <meta> policy ignores frame-ancestors, with a warning).
export const HEADER_ONLY = {
  'frame-ancestors': ["'none'"],
};

const serialize = (policy) => Object.entries(policy).map(([name, sources]) => [name, ...sources].join(' ')).join('; ');

// The policy as the content of <meta http-equiv="Content-Security-Policy">.
export const metaPolicy = () => serialize(POLICY);

// The policy as the value of the Content-Security-Policy response header.
export const headerPolicy = () => serialize({ ...POLICY, ...HEADER_ONLY });

// Cross-origin isolation (COOP + COEP): the page gets SharedArrayBuffer, so attnlab runs its threaded
// build on every core. Everything the site loads is its own, so require-corp blocks nothing. Only
// headers can do this; a host that cannot send them serves the single-threaded build (same numbers).
export const ISOLATION_HEADERS = Object.freeze({
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
});

// The API reference under /api/ is TypeDoc's generated HTML, not the site's pages: its theme is set by an
// inline script in every page, and its navigation and search write HTML strings (innerHTML). Its own
// policy keeps everything on the site's origin but allows those inline scripts and styles and sets no
// Trusted Types requirement; it runs no attnlab code and loads no wasm.
export const API_POLICY = {
  'default-src': ["'self'"],
  'script-src': ["'self'", "'unsafe-inline'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

// Every header scripts/serve-site.mjs sends with a response for `path` (the API reference's policy under /api/).
export const serverHeaders = (path = '/') => ({
  'content-security-policy': path.startsWith('/api/') ? serialize(API_POLICY) : headerPolicy(),
  ...ISOLATION_HEADERS,
});
