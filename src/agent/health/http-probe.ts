import http from 'node:http';

export interface ProbeResult {
  readonly ok: boolean;
  /** For the failure message: `HTTP 503`, `connection refused`, `no answer within 2000 ms` … */
  readonly detail: string;
}

const ERRNO_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
};

/** One `GET http://127.0.0.1:<port><path>`; ok when it answers 2xx within `timeoutMs`. Never throws. */
export function probeHttp(port: number, path: string, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: ProbeResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = http.get({ host: '127.0.0.1', port, path, agent: false, headers: { 'user-agent': 'denv-agent health' } }, (res) => {
      res.resume(); // drain: only the status matters
      const status = res.statusCode ?? 0;
      finish({ ok: status >= 200 && status < 300, detail: `HTTP ${status}` });
    });
    const timer = setTimeout(() => {
      finish({ ok: false, detail: `no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, detail: ERRNO_TEXT[err.code ?? ''] ?? err.code ?? err.message }));
  });
}
