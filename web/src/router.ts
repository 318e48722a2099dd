/**
 * A small client-side router over the History API: the pages are `/`, `/envs/{id}`,
 * `/deployments/{id}` and `/hosts` (DESIGN "Contract details"). Links call `navigate`; the back
 * button works through `popstate`.
 */
import { useEffect, useState } from 'preact/hooks';

export type Route = { page: 'overview' } | { page: 'env'; id: string } | { page: 'deployment'; id: string } | { page: 'hosts' } | { page: 'missing'; path: string };

export function parseRoute(pathname: string): Route {
  if (pathname === '/' || pathname === '') return { page: 'overview' };
  if (pathname === '/hosts') return { page: 'hosts' };
  const m = /^\/(envs|deployments)\/([^/]+)\/?$/.exec(pathname);
  if (m) return { page: m[1] === 'envs' ? 'env' : 'deployment', id: decodeURIComponent(m[2]!) };
  return { page: 'missing', path: pathname };
}

const listeners = new Set<() => void>();

export function navigate(to: string): void {
  if (to === window.location.pathname) return;
  history.pushState(null, '', to);
  window.scrollTo(0, 0);
  for (const l of listeners) l();
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** `onClick` for an <a href>: route in the page unless the user asked for a new tab. */
export function linkClick(e: MouseEvent): void {
  const a = e.currentTarget as HTMLAnchorElement;
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.target) return;
  e.preventDefault();
  navigate(a.getAttribute('href') ?? '/');
}
