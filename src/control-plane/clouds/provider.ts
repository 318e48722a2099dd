/**
 * What a cloud does for denv (issue 14): make a machine that runs an agent enrolled in the team,
 * say its address, destroy it. One interface for every provider; `manual` can do none of it.
 */

/** A machine to make: its record's id, its name (the host's name), and the single-use enrollment
 *  key its agent enrolls with (which links the host to the machine). */
export interface MachineOrder {
  readonly machine: string;
  readonly name: string;
  readonly enrollmentKey: string;
}

/** A machine made: the provider's reference to it, its address, and what the provider needs later to destroy it. */
export interface MadeMachine {
  readonly ref: string;
  readonly ip: string;
  readonly detail: Readonly<Record<string, unknown>>;
  /** Where this process can see the machine's agent end (a `local` machine's process): resolves,
   *  never rejects, with why it ended; `join` then fails at once instead of waiting out its timeout.
   *  Not recorded: after a control-plane restart only the timeout is left. */
  readonly ended?: Promise<string>;
}

export interface CloudProvider {
  /** false: this cloud cannot make machines (`manual`). */
  readonly canProvision: boolean;
  /** Make the machine and start its agent. Called again for the same order after a crash: it
   *  replaces what a half-done earlier call left. */
  create(order: MachineOrder): Promise<MadeMachine>;
  /** Destroy a machine this provider made (`detail` as `create` returned it); one already gone is fine. */
  destroy(machine: { readonly ref: string; readonly detail: Readonly<Record<string, unknown>> }): Promise<void>;
}

/** `manual`: hosts are added by running `denv agent` by hand; nothing to make or destroy. */
export const manualProvider: CloudProvider = {
  canProvision: false,
  async create() {
    throw new Error('a manual cloud cannot provision: run `denv agent` on the machine with an enrollment key');
  },
  async destroy() {},
};
