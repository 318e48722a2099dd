import type { PlanKind } from '../../contracts/kubernetes.js';
import { PLAN_KIND_INFO } from './plan-kinds.js';

/** `items` in apply order by kind (plan-kinds.ts), keeping their given order within a kind. Pure; the
 *  kinds must already be plan kinds (planKindOf). Teardown uses the reverse. */
export function orderForApply<T extends { readonly kind: string }>(items: readonly T[]): T[] {
  const rank = (x: T) => PLAN_KIND_INFO[x.kind as PlanKind].applyOrder;
  return items.map((x, i) => ({ x, i })).sort((a, b) => rank(a.x) - rank(b.x) || a.i - b.i).map(({ x }) => x);
}
