// Test helper: serves gui/ at /gui/ (with the CSP headers of gui.md §1.3) and forwards every
// other path to a ta server. Used by the harness only when the ta binary under test has no
// /gui/ route yet, so the scenarios can run against an API-only build.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const GUI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' };
export const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * @param {string} upstream e.g. http://127.0.0.1:8123
 * @returns {Promise<{url:string, close:()=>Promise<void>}>}
 */
export function startStaticProxy(upstream) {
  const up = new URL(upstream);
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    if (u.pathname === '/gui') { res.writeHead(301, { Location: '/gui/' }); res.end(); return; }
    if (u.pathname.startsWith('/gui/')) {
      let rel = decodeURIComponent(u.pathname.slice(5)) || 'index.html';
      const file = path.resolve(GUI_DIR, rel);
      if (!file.startsWith(GUI_DIR + path.sep) || rel.includes('..') || rel.startsWith('e2e/') || rel.startsWith('tests/')
          || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }); res.end('Not found'); return;
      }
      res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
        'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin',
        'Cache-Control': 'no-cache',
      });
      fs.createReadStream(file).pipe(res);
      return;
    }
    const preq = http.request({ host: up.hostname, port: up.port, method: req.method, path: req.url,
      headers: { ...req.headers, host: `${up.hostname}:${up.port}` } }, (pres) => {
      res.writeHead(pres.statusCode, pres.headers);
      pres.pipe(res);
    });
    preq.on('error', () => { res.writeHead(502, { 'Content-Type': 'text/plain' }); res.end('Bad Gateway'); });
    req.pipe(preq);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }) });
    });
  });
}

// `node static-proxy.mjs http://127.0.0.1:8123 [port]` for development
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const upstream = process.argv[2] || 'http://127.0.0.1:8000';
  startStaticProxy(upstream).then((p) => console.log(`GUI at ${p.url}/gui/ → ${upstream}`));
}
