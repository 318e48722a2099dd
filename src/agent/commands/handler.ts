import type { Commands, CommandKind } from '../../contracts/protocol.js';
import type { AgentContext } from '../context.js';

/**
 * One command kind's work. The dispatcher validates the payload, dedupes by command id, times,
 * logs, persists and answers; a handler only does the work and returns the result or throws
 * (a `DenvError` keeps its code; anything else is answered as AGENT_ERROR).
 */
export interface CommandHandler<K extends CommandKind> {
  /** `receivedAt` is when the command arrived (Date.now()), for timings such as started_in_ms. */
  run(payload: Commands[K]['payload'], ctx: AgentContext, receivedAt: number): Promise<Commands[K]['result']>;
}
