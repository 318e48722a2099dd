import type { V1Ingress } from '@kubernetes/client-node';

/** Whether a tls host entry (`*.example.com` covers one label) covers `host`. */
const covers = (entry: string, host: string) => entry === host || (entry.startsWith('*.') && host.endsWith(entry.slice(1)) && !host.slice(0, -entry.length + 1).includes('.'));

/**
 * Where an Ingress is reachable; pure. Each rule's host, `https://` when one of its tls entries
 * covers it, else `http://`, in rule order without repeats. A rule without a host (or an Ingress of
 * a default backend only) answers on the load balancer's address, when it has one.
 */
export function ingressEndpoints(ing: V1Ingress): string[] {
  const tls = (ing.spec?.tls ?? []).flatMap((t) => t.hosts ?? []);
  const rules = ing.spec?.rules ?? [];
  const out = rules.filter((r) => r.host).map((r) => `${tls.some((t) => covers(t, r.host!)) ? 'https' : 'http'}://${r.host}`);
  if (rules.some((r) => !r.host) || (rules.length === 0 && ing.spec?.defaultBackend)) {
    for (const lb of ing.status?.loadBalancer?.ingress ?? []) if (lb.hostname ?? lb.ip) out.push(`http://${lb.hostname ?? lb.ip}`);
  }
  return [...new Set(out)];
}
