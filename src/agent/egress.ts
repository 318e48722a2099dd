import net from 'node:net';

export interface EgressResult {
  readonly ok: boolean;
  /** `host:port` that was probed. */
  readonly target: string;
  readonly detail: string;
}

/** `host:port` of a control-plane URL (default ports by scheme). Pure. */
export function egressTarget(control: string): { host: string; port: number } {
  const url = new URL(control);
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: url.port ? Number(url.port) : secure ? 443 : 80 };
}

/**
 * Egress check for env.create: can this host open a TCP connection to the control plane (the
 * only network a service needs from us)? Never throws.
 */
export function probeEgress(control: string, timeoutMs = 2000): Promise<EgressResult> {
  let to: net.NetConnectOpts;
  let target: string;
  if (control.startsWith('unix:')) {
    // A control plane reached through its socket file (an agent of a `local` cloud).
    to = { path: control.slice('unix:'.length) };
    target = control;
  } else {
    try {
      const { host, port } = egressTarget(control);
      to = { host, port };
      target = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    } catch {
      return Promise.resolve({ ok: false, target: control, detail: 'invalid control URL' });
    }
  }
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(to);
    const done = (ok: boolean, detail: string) => {
      socket.destroy();
      resolve({ ok, target, detail });
    };
    socket.setTimeout(timeoutMs, () => done(false, `no connection within ${timeoutMs} ms`));
    socket.once('connect', () => done(true, `tcp connect in ${Date.now() - started} ms`));
    socket.once('error', (err: NodeJS.ErrnoException) => done(false, err.code ?? err.message));
  });
}
