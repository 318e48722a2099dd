#!/usr/bin/env node
// The floor for bench/abuse.mjs: a bare node:http + ws server on 127.0.0.1 that refuses attacks
// (a) and (b) the cheapest way there is, with nothing else to do — no database, no routing, no
// validation. What its /healthz loses under the same attack, on the same machine, is what the
// machine itself costs (connection churn, loopback copies, the attacker's share of the CPU).
//
//   node bench/abuse-floor-server.mjs <port>
import http from 'node:http';
import { WebSocketServer } from 'ws';

const port = Number(process.argv[2]);
const maxUnauthenticated = 64;
let unauthenticated = 0;
const server = http.createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    return;
  }
  // Every other request is anonymous here: 401, and the connection is dropped once the answer is out.
  res.writeHead(401, { 'content-type': 'application/json', connection: 'close' });
  res.once('finish', () => req.socket.destroy());
  res.end('{"error":{"code":"UNAUTHORIZED","message":"missing bearer token"}}');
});
const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 });
// Attackers reset connections all the time: nothing to report.
server.on('clientError', (_err, socket) => socket.destroy());
server.on('upgrade', (req, socket, head) => {
  socket.on('error', () => {});
  if (unauthenticated >= maxUnauthenticated) {
    socket.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    unauthenticated++;
    ws.once('close', () => unauthenticated--);
    ws.once('message', () => ws.close(1008, 'no'));
    ws.on('error', () => {});
  });
});
server.listen(port, '127.0.0.1', () => console.log(`floor server on 127.0.0.1:${port}`));
