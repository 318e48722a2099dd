import type { V1LabelSelector } from '@kubernetes/client-node';

/**
 * A Deployment's selector as a `labelSelector` query (`app=web,tier in (a,b)`); pure. An empty
 * selector would select every pod of the namespace, so it is refused rather than turned into "".
 */
export function labelSelector(s: V1LabelSelector | undefined): string {
  const terms = Object.entries(s?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of s?.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') terms.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') terms.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') terms.push(e.key);
    else if (e.operator === 'DoesNotExist') terms.push(`!${e.key}`);
    else throw new Error(`selector operator ${e.operator} is not one Kubernetes defines`);
  }
  if (terms.length === 0) throw new Error('the Deployment has an empty selector: it would select every pod of the namespace');
  return terms.join(',');
}
