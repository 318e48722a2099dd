import { DenvError } from '../../contracts/errors.js';
import { LABEL_ENV, type KubeObject, type PlanKind } from '../../contracts/kubernetes.js';
import type { ClusterClients } from './cluster-clients.js';
import { KubeApiError } from './kube-api-error.js';
import { plainObject } from './kube-json.js';
import { orderForApply } from './order-for-apply.js';
import { PLAN_KIND_INFO } from './plan-kinds.js';

/** A label value (≤ 63 characters, alphanumeric at the ends, `-_.` inside): anything else could add selector terms. */
const LABEL_VALUE = /^(?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** An env's live objects of every plan kind (`denv.dev/env=<envLabel>` in the agent's namespace), as JSON
 *  in apply order: what the planner evolves instead of recreating. */
export async function listEnv(c: ClusterClients, envLabel: string): Promise<KubeObject[]> {
  if (!LABEL_VALUE.test(envLabel)) throw new DenvError('BAD_REQUEST', `env label ${JSON.stringify(envLabel)} is not a Kubernetes label value`);
  const kinds = orderForApply(Object.keys(PLAN_KIND_INFO).map((kind) => ({ kind: kind as PlanKind })));
  const lists = await Promise.all(
    kinds.map(async ({ kind }) => {
      const { apiVersion } = PLAN_KIND_INFO[kind];
      try {
        const list = await c.objects.list(apiVersion, kind, c.namespace, undefined, undefined, undefined, undefined, `${LABEL_ENV}=${envLabel}`);
        // List items come without apiVersion and kind; plainObject sets them.
        return list.items.map((item) => plainObject(item, apiVersion, kind));
      } catch (e) {
        throw new KubeApiError(`list ${kind}s of env ${envLabel}`, e);
      }
    }),
  );
  return lists.flat();
}
