/**
 * The ceiling of one Node.js hop: a bare node:http server that forwards every request to
 * UPSTREAM over undici's keep-alive pool (the client the gateway uses, same version) and
 * streams the answer back. No framework, no token check, no rate limit, no logging, no
 * header filtering: what any gateway written in Node could cost at least on this machine,
 * so "gateway vs direct" can be read against "bare hop vs direct" (bench/README.md, peer).
 *
 *   UPSTREAM=http://127.0.0.1:18081 PORT=18091 node bench/src/proxy-ceiling.ts
 *   GET /healthz answers here; every other request is forwarded as it came.
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';

if (process.argv.includes('--help')) {
  console.log('UPSTREAM=<base url> PORT=<port> node bench/src/proxy-ceiling.ts  (see the header of this file)');
  process.exit(0);
}
const upstream = process.env.UPSTREAM;
if (!upstream) throw new Error('UPSTREAM is required');
const port = Number(process.env.PORT ?? 18091);
const pool = new Pool(upstream, { connections: 128, pipelining: 1 });

// hop-by-hop headers are not forwarded; everything else goes as it came
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host']);

const server = createServer((req, res) => {
  if (req.url === '/healthz') return void res.end('ok');
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP.has(name)) headers[name] = value;
  pool.request({ method: req.method as 'GET', path: req.url ?? '/', headers, body: req.method === 'GET' || req.method === 'HEAD' ? null : req }).then(
    ({ statusCode, headers: answer, body }) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer)) if (value !== undefined && !HOP.has(name)) out[name] = value;
      res.writeHead(statusCode, out);
      body.pipe(res);
    },
    (error: Error) => {
      res.writeHead(502).end(error.message);
    },
  );
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => console.log(`bare proxy on http://127.0.0.1:${port} -> ${upstream}`));
process.on('SIGTERM', () => {
  server.close();
  void pool.close();
  process.exit(0);
});
