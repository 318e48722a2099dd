/**
 * What a provider's `readiness()` answers: can denv use it right now, and what it says about
 * itself. Readiness never changes anything on the provider (the preflight relies on it) and
 * never throws: an unreachable or misconfigured provider is `ready: false` with the reason.
 */
export type ReadinessFact = string | number | boolean | null;

export interface Readiness {
  readonly ready: boolean;
  /** `caddy`, `powerdns`, … */
  readonly provider: string;
  /** What was asked, without secrets: `caddy admin API at 127.0.0.1:2019`. */
  readonly endpoint: string;
  /** One line for a person: what it said, or why it is not ready. */
  readonly detail: string;
  /** What the provider reported (version, zone, route count…), for evidence. */
  readonly facts: Readonly<Record<string, ReadinessFact>>;
}
