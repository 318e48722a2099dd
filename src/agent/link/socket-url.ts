/**
 * The agent socket address for a control-plane URL: http → ws, https → wss, path `/agent/ws`
 * under any base path the URL has. Pure.
 */
export function agentSocketUrl(control: string): string {
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
