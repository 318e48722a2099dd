/** What every mutating provider call answers, and the options every call takes. */

export const CHANGE_ACTIONS = ['created', 'updated', 'unchanged', 'removed', 'absent'] as const;
/**
 *   created    it did not exist; now it does
 *   updated    it existed and differed; now it is as asked
 *   unchanged  it was already as asked; nothing was sent to the provider but reads
 *   removed    it existed; now it does not
 *   absent     it did not exist; nothing to remove
 */
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

export interface Change {
  /** False for `unchanged` and `absent`: a re-run of the same call reports false. */
  readonly changed: boolean;
  readonly action: ChangeAction;
  /** The provider-side objects it wrote or deleted, e.g. `route denv-route-web`, `A app.example.com.`. */
  readonly touched: readonly string[];
}

export const change = (action: ChangeAction, touched: readonly string[] = []): Change => ({
  changed: action === 'created' || action === 'updated' || action === 'removed',
  action,
  touched,
});

export interface CallOptions {
  /** The runner's cancellation; each HTTP call also has the provider's own timeout. */
  readonly signal?: AbortSignal;
}
