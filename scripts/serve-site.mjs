// Serves site/dist on 127.0.0.1 (port from $PORT, default 8080) and prints the URL.
import { fileURLToPath } from 'node:url';

import { serve } from '../tests/e2e/static-server.js';

const root = fileURLToPath(new URL('../site/dist', import.meta.url));
const server = await serve(root, Number(process.env.PORT ?? 8080));
console.log(`attnlab site: ${server.url}/  (Ctrl+C to stop)`);
