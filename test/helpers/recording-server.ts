/**
 * A loopback HTTP server for contract tests of a vendor's API (NPMplus, Cloudflare): it reads each
 * request's body (parsed as JSON when it is JSON), records the request so tests can assert exactly
 * what was sent, then hands it to `handle`. Listens on 127.0.0.1 only.
 */
import http from 'node:http';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: unknown;
}

export interface RecordingServer {
  readonly port: number;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startRecordingServer(handle: (req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: unknown) => void): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      let body: unknown = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, body });
      handle(req, res, url, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
