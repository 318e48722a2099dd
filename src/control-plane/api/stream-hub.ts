/**
 * What the server-sent event streams share (issue 10, item 9):
 *
 * - a per-token cap on open streams (`admit`; over it: 429, nothing is opened);
 * - one poller per watched thing (`watch`): every stream of an env (or of a deployment) is fed by
 *   a single timer and a single query per tick, whatever the number of streams; the bus wakes it
 *   early, and a wake-up during a running fetch is coalesced into one more fetch.
 *
 * The per-stream back-pressure lives in event-stream.ts.
 */
import { DenvError } from '../../contracts/errors.js';

export interface StreamLimits {
  /** Open streams per API token (default 20). */
  readonly perToken: number;
  /** Bytes queued to one client that is not reading before it is dropped (default 1 MiB). */
  readonly maxBufferedBytes: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { perToken: 20, maxBufferedBytes: 1024 * 1024 };

export interface WatchSpec<V> {
  readonly everyMs: number;
  /** Makes the poll's fetch; called once, when the first stream watches the key. */
  readonly fetcher: () => () => Promise<V>;
  /** Registers what wakes the poll early (bus listeners); returns their removal. Called once. */
  readonly wake?: (kick: () => void) => () => void;
}

interface Entry<V> {
  readonly listeners: Set<(v: V) => void>;
  readonly fetch: () => Promise<V>;
  readonly timer: NodeJS.Timeout;
  readonly unwake: () => void;
  busy: boolean;
  again: boolean;
}

export class StreamHub {
  readonly limits: StreamLimits;
  private readonly open = new Map<string, number>();
  private readonly entries = new Map<string, Entry<unknown>>();

  constructor(limits: Partial<StreamLimits> = {}) {
    this.limits = { ...DEFAULT_STREAM_LIMITS, ...limits };
  }

  /** Take one of `tokenId`'s stream slots, or throw TOO_MANY_REQUESTS. Returns its release (idempotent). */
  admit(tokenId: string): () => void {
    const n = this.open.get(tokenId) ?? 0;
    if (n >= this.limits.perToken) {
      throw new DenvError('TOO_MANY_REQUESTS', `this token already has ${n} event streams open (the limit is ${this.limits.perToken}); close one, or use another token`);
    }
    this.open.set(tokenId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(tokenId) ?? 1) - 1;
      if (left <= 0) this.open.delete(tokenId);
      else this.open.set(tokenId, left);
    };
  }

  /** Streams open for `tokenId` (metrics and tests). */
  openStreams(tokenId: string): number {
    return this.open.get(tokenId) ?? 0;
  }

  /** Pollers running (one per watched key). */
  get pollers(): number {
    return this.entries.size;
  }

  /**
   * Feed `listener` with every value the shared poll of `key` fetches (the first one right away).
   * Returns `{kick, close}`: `kick` asks for a fetch now; `close` stops listening, and the last
   * listener's close stops the poll.
   */
  watch<V>(key: string, spec: WatchSpec<V>, listener: (v: V) => void): { kick(): void; close(): void } {
    let entry = this.entries.get(key) as Entry<V> | undefined;
    if (!entry) {
      const fetch = spec.fetcher();
      const kick = () => this.run(key);
      const e: Entry<V> = { listeners: new Set(), fetch, timer: setInterval(kick, spec.everyMs), unwake: spec.wake?.(kick) ?? (() => {}), busy: false, again: false };
      this.entries.set(key, e as Entry<unknown>);
      entry = e;
    }
    entry.listeners.add(listener);
    this.run(key);
    let closed = false;
    return {
      kick: () => this.run(key),
      close: () => {
        if (closed) return;
        closed = true;
        const e = this.entries.get(key);
        if (!e) return;
        e.listeners.delete(listener as (v: unknown) => void);
        if (e.listeners.size === 0) {
          clearInterval(e.timer);
          e.unwake();
          this.entries.delete(key);
        }
      },
    };
  }

  private run(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    if (e.busy) {
      e.again = true;
      return;
    }
    e.busy = true;
    void e
      .fetch()
      .then(
        (v) => {
          for (const l of [...e.listeners]) l(v);
        },
        () => {},
      )
      .finally(() => {
        e.busy = false;
        if (e.again && this.entries.get(key) === e) {
          e.again = false;
          this.run(key);
        }
      });
  }

  /** Stop every poll (shutdown). */
  close(): void {
    for (const e of this.entries.values()) {
      clearInterval(e.timer);
      e.unwake();
    }
    this.entries.clear();
  }
}
