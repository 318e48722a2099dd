/**
 * The control plane's socket file: a connection made to it is handed to the HTTP server as if it
 * had come over TCP, so `/agent/ws` (and the API) answer there too. A socket file is reached
 * through the file system, whatever network namespace the caller is in: agents of a `local`
 * cloud dial it (`denv agent --control unix:<file>`) from namespaces that cannot reach this
 * machine's 127.0.0.1. Mode 0600: only this user (root, who runs the namespaces) connects.
 */
import type { Server } from 'node:http';
import { chmod, rm } from 'node:fs/promises';
import net from 'node:net';

/** sockaddr_un's path is 108 bytes with its terminating NUL. */
const MAX_SOCKET_PATH = 107;

export interface ControlSocket {
  readonly path: string;
  close(): Promise<void>;
}

export async function serveControlSocket(http: Server, file: string): Promise<ControlSocket> {
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH) throw new Error(`the control socket path ${file} is longer than ${MAX_SOCKET_PATH} bytes: use a shorter data dir`);
  await rm(file, { force: true }); // left by a control plane that was killed
  const server = net.createServer((socket) => http.emit('connection', socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  await chmod(file, 0o600);
  return {
    path: file,
    // Stops accepting; the connections it handed over are the HTTP server's to close (app.close()).
    close: async () => void server.close(),
  };
}
