/**
 * The command runner: everything around a handler. Validates the payload, dedupes by command id
 * (CommandStore), times and logs the run, and answers `{type: 'result', id, ok, result | error}`.
 *
 * Answers: one `result` per completed run, sent on whatever socket is up when it completes; a
 * re-delivered command that already finished is answered again from the store; a re-delivery
 * that joins a run in flight is not answered separately (the run's own answer covers it).
 *
 * Every answer stays in the *outbox* until the control plane acknowledges it (`acknowledged`,
 * from an `ack` frame): `flush()`, called after each welcome, sends the whole outbox again, and
 * `retransmit()`, called on heartbeats, sends again what has waited too long for its ack (the
 * control plane read it but could not store it, say while its database restarted). The outbox
 * starts with the unacknowledged results the command store kept across a restart.
 */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import type { AgentMessage, CommandKind } from '../../contracts/protocol.js';
import { parseOrThrow } from '../../contracts/validation.js';
import type { AgentContext } from '../context.js';
import { outcomeOfError, type CommandOutcome, type CommandStore, type UnackedResult } from './command-store.js';
import { HANDLERS } from './index.js';
import { PAYLOADS } from './payloads.js';

export interface CommandMessage {
  readonly id: string;
  readonly kind: string;
  readonly payload: unknown;
}

type ResultMessage = Extract<AgentMessage, { type: 'result' }>;
type OutputMessage = Extract<AgentMessage, { type: 'output' }>;

/** What the runner needs of an agent's context: a host agent's (context.ts) or a cluster agent's. */
export type DispatchContext = Pick<AgentContext, 'dataDir' | 'released' | 'log' | 'output'>;

/** The kinds an agent handles: each handler with the schema its payload is checked against.
 *  `readOnly` kinds (telemetry): running one twice is harmless, so they bypass the command store
 *  and the command log — a log view every few seconds must not leave a file per request. */
export interface CommandRegistry<C extends DispatchContext> {
  readonly handlers: Partial<Record<CommandKind, { run(payload: never, ctx: C, receivedAt: number): Promise<unknown> }>>;
  readonly payloads: Partial<Record<CommandKind, z.ZodType>>;
  readonly readOnly: ReadonlySet<string>;
}

/** A host agent's registry (index.ts, payloads.ts). */
export const HOST_COMMANDS: CommandRegistry<AgentContext> = {
  handlers: HANDLERS,
  payloads: PAYLOADS,
  readOnly: new Set<CommandKind>(['logs.request', 'status.refresh', 'env.snapshots']),
};

export interface Dispatcher {
  /** Handle one command; resolves once it is answered (sent, or kept in the outbox for `flush`). */
  dispatch(msg: CommandMessage): Promise<void>;
  /** After a welcome: send every answer not acknowledged yet, oldest first. */
  flush(): void;
  /** Send again the answers sent more than `olderThanMs` ago and still not acknowledged. */
  retransmit(olderThanMs: number): void;
  /** The control plane stored the result of `id`: drop it from the outbox and mark its record. */
  acknowledged(id: string): Promise<void>;
}

function resultMessage(id: string, outcome: CommandOutcome): ResultMessage {
  return outcome.ok ? { type: 'result', id, ok: true, result: outcome.result } : { type: 'result', id, ok: false, error: outcome.error };
}

/** `unacked`: results finished before this process started and never acknowledged (CommandStore.unacked).
 *  `registry`: the kinds this agent handles (default: a host agent's). */
export function createDispatcher<C extends DispatchContext = AgentContext>(
  ctx: C,
  store: CommandStore,
  send: (msg: ResultMessage | OutputMessage) => boolean,
  unacked: readonly UnackedResult[] = [],
  registry: CommandRegistry<C> = HOST_COMMANDS as unknown as CommandRegistry<C>,
): Dispatcher {
  type Run = { run(p: unknown, c: C, at: number): Promise<unknown> };
  const handlerOf = (kind: string) => (Object.hasOwn(registry.handlers, kind) ? (registry.handlers[kind as CommandKind] as Run | undefined) : undefined);
  const payloadOf = (kind: string) => registry.payloads[kind as CommandKind]!;
  /** Answers awaiting an ack, in insertion order; `sentAt` null: not sent yet. */
  const outbox = new Map<string, { msg: ResultMessage; sentAt: number | null }>();
  const transmit = (msg: ResultMessage) => outbox.set(msg.id, { msg, sentAt: send(msg) ? Date.now() : null });
  const answer = (msg: ResultMessage) => {
    outbox.delete(msg.id); // a newer answer to the same id goes to the back
    transmit(msg);
  };
  for (const r of unacked) outbox.set(r.id, { msg: resultMessage(r.id, r.outcome), sentAt: null });

  return {
    async dispatch({ id, kind, payload }) {
      const receivedAt = Date.now();
      const handler = handlerOf(kind);
      if (!handler) {
        ctx.log(`command ${id}: unknown kind "${kind}"`);
        answer({ type: 'result', id, ok: false, error: { code: 'BAD_REQUEST', message: `this agent does not know command kind "${kind}"` } });
        return;
      }
      const env = (payload as { env?: unknown } | null)?.env;
      if (typeof env === 'string' && kind !== 'env.release' && ctx.released.has(env)) {
        await logCommand(ctx, { id, kind, env, source: 'refused' });
        answer({ type: 'result', id, ok: false, error: { code: 'RELEASED', message: `env ${env} was separated from denv; this agent no longer acts on it` } });
        return;
      }
      if (registry.readOnly.has(kind)) {
        let outcome: CommandOutcome;
        try {
          outcome = { ok: true, result: await handler.run(parseOrThrow(payloadOf(kind), payload, 'BAD_REQUEST', 'payload'), ctx, receivedAt) };
        } catch (err) {
          outcome = outcomeOfError(err);
        }
        answer(resultMessage(id, outcome));
        return;
      }
      const { outcome, source } = await store.run(
        id,
        kind,
        async () => {
          ctx.log(`command ${id} ${kind} started`);
          // The handler map is indexed by the same kind as the schema: the pair is consistent by construction.
          // Live output (a build's) goes out as it comes, best effort: not kept for a reconnect.
          const output = (service: string, lines: readonly string[]) => void send({ type: 'output', id, service, lines: [...lines] });
          return handler.run(parseOrThrow(payloadOf(kind), payload, 'BAD_REQUEST', 'payload'), { ...ctx, output }, receivedAt);
        },
        typeof env === 'string' ? env : null,
      );
      await logCommand(ctx, { id, kind, env: typeof env === 'string' ? env : null, source });
      const took = Date.now() - receivedAt;
      const summary = outcome.ok ? describeResult(outcome.result) : `error ${outcome.error.code}: ${outcome.error.message}`;
      if (source === 'joined') {
        ctx.log(`command ${id} ${kind} re-delivered while running; answered by the run itself`);
        return;
      }
      ctx.log(
        source === 'stored'
          ? `command ${id} ${kind} already done; re-sending its result (${summary})`
          : `command ${id} ${kind} ${source === 'resumed' ? 'resumed after a restart cut it short, ' : ''}finished in ${took} ms: ${summary}`,
      );
      answer(resultMessage(id, outcome));
    },
    flush() {
      for (const { msg } of [...outbox.values()]) transmit(msg);
    },
    retransmit(olderThanMs) {
      const before = Date.now() - olderThanMs;
      for (const { msg, sentAt } of [...outbox.values()]) if (sentAt === null || sentAt < before) transmit(msg);
    },
    async acknowledged(id) {
      outbox.delete(id);
      await store.ack(id);
    },
  };
}

/**
 * The agent's own record of every command delivery, `<dataDir>/command-log.jsonl`: one line per
 * delivery, written when it is answered, with how it was handled (`ran` = applied now, `resumed` =
 * applied again because an agent restart cut the earlier run short, `stored` = answered from the
 * record of an earlier run, `joined` = joined the run in flight, `refused` = env separated). Tests read it to prove what the host received; operators to see what was done.
 */
async function logCommand(ctx: DispatchContext, entry: { id: string; kind: string; env: string | null; source: string }): Promise<void> {
  await appendFile(path.join(ctx.dataDir, 'command-log.jsonl'), `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`, { mode: 0o600 }).catch(() => {});
}

function describeResult(result: unknown): string {
  if (result && typeof result === 'object' && 'outcome' in result) {
    const r = result as { outcome: unknown; message?: unknown };
    return r.message ? `${String(r.outcome)}: ${String(r.message)}` : String(r.outcome);
  }
  return 'ok';
}
