// A tiny dependency-free HTTP server for the denv example.
// Listens on 127.0.0.1:$PORT (denv sets PORT), answers / with a greeting naming the version denv
// deployed (DENV_VERSION, set by the agent) and /healthz with "ok", logs one line per request, and
// exits cleanly on SIGTERM (how denv stops a process service).
import http from 'node:http';

const port = Number(process.env.PORT ?? 8080);
const version = process.env.DENV_VERSION;

const server = http.createServer((req, res) => {
  const started = Date.now();
  res.on('finish', () => {
    console.log(`${req.method} ${req.url} ${res.statusCode} ${Date.now() - started}ms`);
  });
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('ok\n');
    return;
  }
  if (req.url === '/' || req.url?.startsWith('/?')) {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`Hello from denv!${version ? ` version ${version},` : ''} pid ${process.pid}\n`);
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('not found\n');
});

server.listen(port, '127.0.0.1', () => {
  console.log(`hello listening on http://127.0.0.1:${port} (pid ${process.pid})`);
});

function stop(signal) {
  console.log(`${signal}: shutting down`);
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  // Don't hang on a slow client.
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
