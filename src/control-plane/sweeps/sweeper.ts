import { messageOf } from '../../contracts/errors.js';
import type { Bus } from '../bus.js';

/**
 * Runs one sweep on an interval and whenever the bus says work is waiting (`kick`, unless
 * `kicked: false`: a sweep with nothing to do for new deployments; or the topic `wakeOn` names),
 * never two runs of it at once;
 * a kick during a run schedules one more run right after. Errors are logged, and the next tick
 * tries again.
 */
export class Sweeper {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private again = false;
  private stopped = false;
  private readonly kick = () => void this.run();

  constructor(
    private readonly name: string,
    private readonly sweep: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly bus: Bus,
    private readonly log: (line: string) => void,
    private readonly o: { readonly kicked?: boolean; readonly wakeOn?: 'aws-vending' } = {},
  ) {}

  start(): this {
    this.timer = setInterval(this.kick, this.everyMs);
    if (this.o.kicked !== false) this.bus.on('kick', this.kick);
    if (this.o.wakeOn) this.bus.on(this.o.wakeOn, this.kick);
    void this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.bus.off('kick', this.kick);
    if (this.o.wakeOn) this.bus.off(this.o.wakeOn, this.kick);
    while (this.running) await new Promise((r) => setTimeout(r, 10));
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        await this.sweep();
      } while (this.again && !this.stopped);
    } catch (err) {
      if (!this.stopped) this.log(`${this.name}: ${messageOf(err)}`);
    } finally {
      this.running = false;
    }
  }
}
