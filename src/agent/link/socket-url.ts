/**
 * The agent socket address for a control-plane URL: http → ws, https → wss, path `/agent/ws`
 * under any base path the URL has; `unix:/abs/path.sock` (a control plane's socket file, which an
 * agent in a network namespace of its own can still reach) → ws+unix. Pure.
 */
export function agentSocketUrl(control: string): string {
  if (control.startsWith('unix:')) {
    const socket = control.slice('unix:'.length);
    if (!socket.startsWith('/') || socket.includes(':')) throw new Error(`control socket must be an absolute path without ':', got ${socket}`);
    return `ws+unix://${socket}:/agent/ws`;
  }
  const url = new URL(control);
  const schemes: Record<string, string> = { 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' };
  const scheme = schemes[url.protocol];
  if (!scheme) throw new Error(`control URL must be http(s) or ws(s), got ${url.protocol}`);
  url.protocol = scheme;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/agent/ws`;
  url.search = '';
  url.hash = '';
  return url.toString();
}
