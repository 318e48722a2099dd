// The floor of bench/load.mjs --floor, a process of its own: an HTTP server on 127.0.0.1 that does
// nothing but answer every GET with the body it was last given (PUT /), so a read of it costs only
// what any read costs on this machine — a thread woken, a socket read and written. Read at the same
// rate and in the same phases as the control plane, its p99 is what the machine's scheduling alone
// adds to a read while the deploys keep the cores busy. Prints its port on the first line.
import http from 'node:http';

let body = '{"items":[],"next":null}';
const server = http.createServer((req, res) => {
  if (req.method === 'PUT') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      body = Buffer.concat(chunks).toString();
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
