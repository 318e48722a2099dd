/**
 * Compose documents are loaded off the event loop. Loading one (YAML, interpolation, the Compose
 * schema, denv's rules) costs a few milliseconds of CPU, and a deploy request used to spend them on
 * the API's thread: 30 deploys at once held every other request ~100 ms (bench/load.mjs). Here one
 * worker thread loads them, one at a time in arrival order, while the API thread serves the rest.
 *
 * Each load has a deadline (default 10 s; the loader's size, depth and alias caps make a real
 * document take milliseconds): past it the worker is terminated, that request is refused with 400,
 * and a new worker takes the next one. A worker that dies fails the load it held (500) and is
 * replaced the same way, so one bad document never stalls the others.
 *
 * The thread starts with the first load, not with the control plane, and ends after `idleMs`
 * (default 30 s) without one: with its modules and the Compose schema's validator it holds ~30 MiB, which a control
 * plane between deploys has no use for (bench/load.mjs measures RSS). The first load after a pause
 * pays the thread's start, ~0.15 s of CPU (its modules; the schema's validator comes compiled,
 * schema.ts), on that thread, not the API's.
 */
import type { Worker } from 'node:worker_threads';
import { DenvError } from '../../contracts/errors.js';
import type { Spec } from '../../contracts/spec-types.js';
import { spawnModuleWorker } from '../../lib/module-worker.js';
import type { SpecLoadReply, SpecLoadRequest } from './spec-load-worker.js';

export type Compose = SpecLoadRequest['compose'];

interface Job {
  readonly id: number;
  readonly compose: Compose;
  readonly projectDir?: string;
  readonly deadlineMs: number;
  readonly resolve: (spec: Spec) => void;
  readonly reject: (err: Error) => void;
}

export const DEFAULT_SPEC_DEADLINE_MS = 10_000;
export const DEFAULT_SPEC_IDLE_MS = 30_000;

export class SpecLoader {
  private worker: Worker | null = null;
  private readonly queue: Job[] = [];
  private current: { job: Job; timer: NodeJS.Timeout } | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private closed = false;

  constructor(private readonly o: { readonly deadlineMs?: number; readonly idleMs?: number; readonly log: (line: string) => void }) {}

  /** Whether the loader's thread is running (it is between its first load and `idleMs` after its last). */
  get threadRunning(): boolean {
    return this.worker !== null;
  }

  /**
   * The document loaded into a Spec, or its refusal as the DenvError loadSpec throws.
   * `projectDir`: the directory relative paths (build contexts) resolve against (default `/`).
   */
  load(compose: Compose, deadlineMs = this.o.deadlineMs ?? DEFAULT_SPEC_DEADLINE_MS, projectDir?: string): Promise<Spec> {
    if (this.closed) return Promise.reject(new DenvError('INTERNAL', 'the control plane is stopping'));
    return new Promise<Spec>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, compose, ...(projectDir !== undefined ? { projectDir } : {}), deadlineMs, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopIdleTimer();
    for (const job of this.queue.splice(0)) job.reject(new DenvError('INTERNAL', 'the control plane is stopping'));
    this.settle((job) => job.reject(new DenvError('INTERNAL', 'the control plane is stopping')));
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const w = spawnModuleWorker(import.meta.url, 'spec-load-worker');
    w.unref(); // the server keeps the process alive, not this thread
    w.on('message', (reply: SpecLoadReply | { ready: true }) => {
      if (!('id' in reply) || reply.id !== this.current?.job.id) return;
      this.settle((job) => {
        if ('spec' in reply) job.resolve(reply.spec);
        else if ('refused' in reply) job.reject(new DenvError(reply.refused.code, reply.refused.message));
        else job.reject(new Error(`loading the Compose document failed: ${reply.crashed}`));
      });
    });
    w.on('error', (err) => this.replace(w, `the Compose loader stopped: ${err.message}`));
    w.on('exit', (code) => this.replace(w, `the Compose loader exited with code ${code}`));
    this.worker = w;
    return w;
  }

  /** Worker `w` is gone: fail what it held and let the next load start a new one. */
  private replace(w: Worker, why: string): void {
    if (this.worker !== w) return;
    this.worker = null;
    if (this.closed) return;
    this.o.log(`spec loader: ${why}; starting another`);
    this.settle((job) => job.reject(new Error(why)));
  }

  /** End the load in progress with `outcome` and start the next one. */
  private settle(outcome: (job: Job) => void): void {
    const cur = this.current;
    if (!cur) return;
    clearTimeout(cur.timer);
    this.current = null;
    outcome(cur.job);
    this.pump();
  }

  private stopIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Nothing to load: end the thread if nothing arrives within idleMs. */
  private retireWhenIdle(): void {
    const w = this.worker;
    if (!w) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      this.worker = null; // before it exits, so `replace` does not log it as lost
      void w.terminate();
    }, this.o.idleMs ?? DEFAULT_SPEC_IDLE_MS);
    this.idleTimer.unref();
  }

  private pump(): void {
    if (this.current || this.closed) return;
    this.stopIdleTimer();
    const job = this.queue.shift();
    if (!job) return this.retireWhenIdle();
    const w = this.ensureWorker();
    const { deadlineMs } = job;
    const timer = setTimeout(() => {
      // Abandon the load: the worker may be stuck in it for good.
      this.worker = null;
      void w.terminate();
      this.settle((j) => j.reject(new DenvError('INVALID_COMPOSE', `compose: loading it took longer than ${deadlineMs} ms; it was abandoned (is it very large or deeply nested?)`)));
    }, deadlineMs);
    this.current = { job, timer };
    w.postMessage({ id: job.id, compose: job.compose, ...(job.projectDir !== undefined ? { projectDir: job.projectDir } : {}) } satisfies SpecLoadRequest);
  }
}
