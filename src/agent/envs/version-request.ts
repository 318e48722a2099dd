/**
 * What env.create, env.fork and env.rollback ask of a version (start-version.ts brings it up), and
 * how its services' failures make its one outcome.
 */
import type { PackedTree, ServiceSpec } from '../../contracts/spec.js';
import type { SourceCheckout } from '../../contracts/source.js';
import type { SiblingAddress } from './siblings.js';

export interface VersionRequest {
  readonly env: string;
  readonly version: string;
  readonly services: Readonly<Record<string, ServiceSpec>>;
  readonly volumes: readonly string[];
  /** env.create: the envelope the control plane relayed (unvalidated; admit decides). */
  readonly envelope?: unknown;
  /** env.create: one envelope per signed image service (each names its service). */
  readonly envelopes?: readonly unknown[];
  /** env.create: the project and env names (an envelope's `scope` binds to them). */
  readonly project?: string;
  readonly env_name?: string;
  /** env.rollback: image services start the deploy this host verified for the version instead of running the pipeline. */
  readonly activate?: boolean;
  readonly retire_others?: boolean;
  /** Addresses of services started elsewhere in this version (image services), for `DENV_<S>_HOST/PORT`. */
  readonly siblings?: readonly SiblingAddress[];
  /** Secret, config and bind-mounted file contents of the version (Spec.files). */
  readonly files?: Readonly<Record<string, PackedTree>>;
  /** A source deploy: the commit whose checkout its process services run in (source/checkout.ts). */
  readonly source?: SourceCheckout;
}

/** A service's pipeline ended in one of these terminal states: it runs (its dependents may start). */
export const RUNNING_STATES: ReadonlySet<string> = new Set(['success', 'no_op', 'success_degraded']);

/** A service that failed, in a way that decides the version's outcome. */
export type Failure = { readonly service: string; readonly outcome: 'start_failed' | 'unhealthy'; readonly message: string };

/** The first failure decides the outcome's kind: any start failure makes it `start_failed`. */
export function summarizeFailures(failures: readonly Failure[]): { outcome: 'start_failed' | 'unhealthy'; message: string } {
  return {
    outcome: failures.some((f) => f.outcome === 'start_failed') ? 'start_failed' : 'unhealthy',
    message: failures.map((f) => f.message).join('; '),
  };
}
