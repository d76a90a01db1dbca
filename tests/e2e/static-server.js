// A tiny static file server on 127.0.0.1 for the browser tests (no network beyond loopback).
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { createGzip } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

// Fonts (woff2) and images are compressed already; a host's gzip leaves them as they are.
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.wasm', '.css', '.json', '.svg', '.txt', '.jsonl']);

// Serves `root` (on `port`, or any free port), adding `headers` to every response (or headers(path) for
// each path, when it is a function); resolves to
// { url, close() }. With gzip, text and .wasm go out gzip-encoded to a client that accepts it, as most
// static hosts send them (the site-load bench measures both).
export function serve(root, port = 0, { headers: headersFor = {}, gzip = false } = {}) {
  const server = createServer((request, response) => {
    let path;
    try {
      path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname));
    } catch {
      const headers = typeof headersFor === 'function' ? headersFor('/') : headersFor;
      response.writeHead(400, headers).end('bad request');  // e.g. "/%" — malformed escapes must not crash the server
      return;
    }
    const headers = typeof headersFor === 'function' ? headersFor(path) : headersFor;
    let file = join(root, path);
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      statSync(file);
    } catch {
      response.writeHead(404, headers).end('not found');
      return;
    }
    const type = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' };
    const stream = createReadStream(file).on('error', () => response.destroy());
    if (gzip && COMPRESSIBLE.has(extname(file)) && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
      response.writeHead(200, { ...headers, ...type, 'content-encoding': 'gzip', vary: 'accept-encoding' });
      stream.pipe(createGzip()).pipe(response);
    } else {
      response.writeHead(200, { ...headers, ...type });
      stream.pipe(response);
    }
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
