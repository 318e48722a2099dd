/**
 * The network path from a test's machine-in-a-namespace back to a server on this machine's
 * 127.0.0.1 (a control plane), standing in for the route a real machine has to the control plane's
 * public address. Inside the namespace a small Node process listens on 127.0.0.1:<port> and
 * forwards each connection to a socket file; this process takes it from the socket file to the
 * server. Nothing listens outside loopback and socket files.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopProcess } from './daemon.js';

/** Run inside the namespace: 127.0.0.1:<argv[1]> → socket file <argv[2]>; prints "ready" once listening. */
const FORWARDER = [
  "const net = require('net');",
  'const [port, file] = process.argv.slice(1);',
  'net.createServer((c) => { const u = net.connect(file); c.pipe(u).pipe(c); c.on("error", () => u.destroy()); u.on("error", () => c.destroy()); })',
  "  .listen(Number(port), '127.0.0.1', () => console.log('ready'));",
].join('\n');

export interface NetnsBridge {
  /** The URL the namespace reaches the server at. */
  readonly url: string;
  close(): Promise<void>;
}

export async function bridgeIntoNamespace(ns: string, nsPort: number, serverPort: number): Promise<NetnsBridge> {
  const dir = mkdtempSync(join(tmpdir(), 'denv-bridge-'));
  const file = join(dir, 'bridge.sock');
  const server = net.createServer((c) => {
    const up = net.connect(serverPort, '127.0.0.1');
    c.pipe(up).pipe(c);
    c.on('error', () => up.destroy());
    up.on('error', () => c.destroy());
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(file, resolve));
  const proc = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', FORWARDER, String(nsPort), file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.once('data', () => resolve());
    proc.once('exit', (code) => reject(new Error(`the forwarder in ${ns} exited (${code}): ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${nsPort}`,
    async close() {
      await stopProcess(proc);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
