// Serves site/dist on 127.0.0.1 (port from $PORT, default 8080; 0 picks a free one) and prints the
// URL. Every response carries the site's Content-Security-Policy (site/csp.js) as a header, which
// can also forbid framing — something the pages' own <meta> policy cannot do — and the
// cross-origin-isolation headers that let attnlab use every core.
import { fileURLToPath } from 'node:url';

import { serverHeaders } from '../site/csp.js';
import { serve } from '../tests/e2e/static-server.js';

const root = fileURLToPath(new URL('../site/dist', import.meta.url));
const server = await serve(root, Number(process.env.PORT ?? 8080), { headers: serverHeaders });
console.log(`attnlab site: ${server.url}/  (Ctrl+C to stop)`);
