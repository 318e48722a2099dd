/**
 * Following a deployment to its end: `GET /v1/deployments/{id}/stream` (server-sent events, each
 * `event: deployment` carrying the deployment JSON, closed by `event: end` after a terminal
 * status). When the stream drops, the deployment is re-read with `GET /v1/deployments/{id}` and
 * the stream reopened with backoff, so a control-plane restart mid-deploy only pauses the watch.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Deployment } from '../contracts/domain.js';
import { CliError } from './cli-error.js';
import { seg, type ApiClient } from './client.js';
import { PhaseProgress, formatOutcome, isTerminal } from './format-deployment.js';
import { toJson } from './output.js';

export interface FollowOptions {
  readonly signal?: AbortSignal;
  /** Called with every state seen, duplicates included (PhaseProgress de-duplicates). */
  readonly onUpdate?: (d: Deployment) => void;
  /** Called with the lines a service's build prints, as the control plane relays them. */
  readonly onOutput?: (o: { readonly service: string; readonly lines: readonly string[] }) => void;
  /** Give up (UNREACHABLE) after the control plane has been unreachable this long. Default 60 s. */
  readonly giveUpAfterMs?: number;
  /** First and longest pause between reconnects. */
  readonly backoffMs?: { readonly first: number; readonly max: number };
}

/** Resolves with the deployment once it is terminal; rejects on API refusals (4xx) and on abort. */
export async function followDeployment(client: Pick<ApiClient, 'get' | 'events' | 'url'>, id: string, opts: FollowOptions = {}): Promise<Deployment> {
  const { signal, onUpdate } = opts;
  const giveUpAfterMs = opts.giveUpAfterMs ?? 60_000;
  const backoff = opts.backoffMs ?? { first: 250, max: 5000 };
  let pause = backoff.first;
  let failingSince: number | null = null;
  const path = `/v1/deployments/${seg(id)}`;

  const seen = (d: Deployment): void => {
    failingSince = null;
    pause = backoff.first;
    onUpdate?.(d);
  };
  /** A refusal (4xx) is final; anything else (drop, restart, 5xx) is retried until the budget runs out. */
  const transient = (err: unknown): void => {
    if (signal?.aborted) throw err;
    if (err instanceof CliError && err.status !== null && err.status < 500) throw err;
    failingSince ??= Date.now();
    if (Date.now() - failingSince > giveUpAfterMs) throw err;
  };

  for (;;) {
    let last: Deployment | null = null;
    try {
      for await (const message of client.events(`${path}/stream`, signal)) {
        if (message.event === 'deployment') {
          last = parseDeployment(message.data);
          seen(last);
        } else if (message.event === 'output') {
          const out = parseOutput(message.data);
          if (out) opts.onOutput?.(out);
        } else if (message.event === 'end') {
          break;
        }
      }
      if (last && isTerminal(last.status)) return last;
    } catch (err) {
      transient(err);
    }
    // The stream closed or dropped before a terminal state: re-read, then reconnect.
    try {
      const d = await client.get<Deployment>(path, undefined, signal);
      seen(d);
      if (isTerminal(d.status)) return d;
    } catch (err) {
      transient(err);
    }
    await delay(pause, undefined, { signal });
    pause = Math.min(pause * 2, backoff.max);
  }
}

function parseOutput(data: string): { service: string; lines: string[] } | null {
  try {
    const o = JSON.parse(data) as { service?: unknown; lines?: unknown };
    if (typeof o.service === 'string' && Array.isArray(o.lines)) return { service: o.service, lines: o.lines.map(String) };
  } catch {
    // not ours: ignored
  }
  return null;
}

function parseDeployment(data: string): Deployment {
  try {
    const d = JSON.parse(data) as Deployment;
    if (d && typeof d === 'object' && typeof d.status === 'string' && Array.isArray(d.phases)) return d;
  } catch {
    // fall through
  }
  throw new CliError('BAD_RESPONSE', `the deployment stream sent something that is not a deployment: ${data.slice(0, 120)}`);
}

export interface WatchOptions {
  readonly json?: boolean;
  readonly signal?: AbortSignal;
  /** Where lines go (default stdout). */
  readonly write?: (line: string) => void;
  /** Show a phase as running only once it has run this long (default 1 s; fast phases print once). */
  readonly runningAfterMs?: number;
}

/**
 * `deployment watch`: print phases as they change and the outcome, or with `json` only the final
 * deployment. Returns the final deployment; the exit code is `exitCodeFor` it.
 */
export async function watchDeployment(client: ApiClient, id: string, opts: WatchOptions = {}): Promise<Deployment> {
  const write = opts.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const progress = new PhaseProgress(opts.runningAfterMs ?? 1000);
  const ticker = opts.json ? null : setInterval(() => progress.tick(Date.now()).forEach(write), 250);
  try {
    const final = await followDeployment(client, id, {
      signal: opts.signal,
      onUpdate: opts.json ? undefined : (d) => progress.update(d, Date.now()).forEach(write),
      // A build's lines as it prints them, under the phase that runs it.
      onOutput: opts.json ? undefined : (o) => o.lines.forEach((line) => write(`      ${o.service} | ${line}`)),
    });
    write(opts.json ? toJson(final) : formatOutcome(final));
    return final;
  } finally {
    if (ticker) clearInterval(ticker);
  }
}

/** 0 only for a deployment that succeeded. */
export function exitCodeFor(d: Deployment): number {
  return d.status === 'succeeded' ? 0 : 1;
}
