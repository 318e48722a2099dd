/**
 * The API token the UI signs in with (DESIGN "Contract details"): typed into the sign-in form, or
 * carried by any UI address as `#token=<api token>` (what `denv dev` prints). It is kept in this
 * browser's localStorage and the fragment is removed from the address at once, so it does not
 * linger in history or get copied along with a link.
 */
const KEY = 'denv.token';

/** Take a `#token=` from the address, if any (call once at start). */
export function adoptTokenFromFragment(): void {
  const hash = window.location.hash.replace(/^#/, '');
  const params = new URLSearchParams(hash);
  const token = params.get('token');
  if (!token) return;
  localStorage.setItem(KEY, token.trim());
  params.delete('token');
  const rest = params.toString();
  history.replaceState(history.state, '', `${window.location.pathname}${window.location.search}${rest ? `#${rest}` : ''}`);
}

export function getToken(): string | null {
  return localStorage.getItem(KEY);
}

export function setToken(token: string): void {
  localStorage.setItem(KEY, token.trim());
}

export function clearToken(): void {
  localStorage.removeItem(KEY);
}
