import type { ClusterClients } from './cluster-clients.js';
import { ingressEndpoints } from './ingress-endpoints.js';
import { httpStatusOf, KubeApiError } from './kube-api-error.js';

/** The URLs of these Ingresses of the agent's namespace (ingress-endpoints.ts), in the order given, without
 *  repeats; an Ingress that does not exist adds none. */
export async function readEndpoints(c: ClusterClients, ingresses: readonly string[]): Promise<string[]> {
  const urls = await Promise.all(
    ingresses.map(async (name) => {
      try {
        return ingressEndpoints(await c.networking.readNamespacedIngress({ name, namespace: c.namespace }));
      } catch (e) {
        if (httpStatusOf(e) === 404) return [];
        throw new KubeApiError(`read Ingress ${name}`, e);
      }
    }),
  );
  return [...new Set(urls.flat())];
}
