/**
 * An agent behind the real protocol, in this process: it dials `/agent/ws`, trades an enrollment
 * key for a credential, heartbeats, and answers each command with what the test's `answer` says
 * (a result; a thrown error is an `ok: false` result; `HOLD` never answers). Everything on the
 * control plane's side is real (API, phase engine, gateway, store); only the host is scripted, so
 * a test can make a host answer exactly what it needs and see exactly what was asked of it.
 * (The agent protocol is an interface of the control plane; this is a test host behind it, not a
 * stand-in for the code under test. Real agents have their own suites.)
 */
import WebSocket from 'ws';
import { PROTOCOL_VERSION, type CommandKind, type Commands, type EnvCreateResult } from '../../src/contracts/protocol.js';

export interface ReceivedCommand {
  readonly id: string;
  readonly kind: CommandKind;
  readonly payload: any;
}

/** Answer a command: its result, or throw (`ok: false`, code AGENT_ERROR), or `HOLD` (no answer). */
export type Answer = (command: ReceivedCommand) => unknown;
export const HOLD = Symbol('hold');

export interface FakeAgent {
  readonly hostId: string;
  /** Every command delivery, in order (a re-sent command appears again with the same id). */
  readonly received: ReceivedCommand[];
  answer: Answer;
  close(): Promise<void>;
}

const FACTS = { hostname: 'fake', platform: 'linux', arch: 'x64', runtimes: ['process'], dataset_driver: 'copy', agent_version: 'test' };

export async function connectFakeAgent(controlUrl: string, enrollmentKey: string, answer: Answer, name = 'fake-host'): Promise<FakeAgent> {
  const ws = new WebSocket(`${controlUrl.replace(/^http/, 'ws')}/agent/ws`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const received: ReceivedCommand[] = [];
  let heartbeat: NodeJS.Timeout | undefined;
  const welcomed = new Promise<string>((resolve, reject) => {
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { type: string; [k: string]: any };
      if (msg.type === 'welcome') {
        heartbeat = setInterval(() => ws.send(JSON.stringify({ type: 'heartbeat' })), msg.heartbeat_ms);
        resolve(msg.host_id);
      } else if (msg.type === 'refused') reject(new Error(`refused (${msg.code}): ${msg.message}`));
      else if (msg.type === 'command') {
        const command: ReceivedCommand = { id: msg.id, kind: msg.kind, payload: msg.payload };
        received.push(command);
        void (async () => {
          let reply: Record<string, unknown>;
          try {
            const result = await agent.answer(command);
            if (result === HOLD) return;
            reply = { type: 'result', id: command.id, ok: true, result };
          } catch (err) {
            reply = { type: 'result', id: command.id, ok: false, error: { code: 'AGENT_ERROR', message: (err as Error).message } };
          }
          if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(reply));
        })();
      }
    });
  });
  ws.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, name, enrollment_key: enrollmentKey, facts: FACTS }));
  const agent: FakeAgent = {
    hostId: await welcomed,
    received,
    answer,
    async close() {
      clearInterval(heartbeat);
      if (ws.readyState === ws.CLOSED) return;
      await new Promise((resolve) => {
        ws.once('close', resolve);
        ws.close();
      });
    },
  };
  return agent;
}

/** What an agent answers to env.create / env.rollback when every service of the version came up: one endpoint per service on `port`. */
export function healthy(payload: { services: Record<string, unknown> }, port: number): EnvCreateResult {
  return {
    outcome: 'healthy',
    message: null,
    started_in_ms: 12,
    healthy_in_ms: 34,
    endpoints: Object.keys(payload.services).map((service, i) => ({ service, url: `http://127.0.0.1:${port + i}`, port: port + i })),
    datasets: [],
    egress: { ok: true, target: 'control plane', detail: 'reachable' },
    services: Object.fromEntries(Object.keys(payload.services).map((service, i) => [service, { pid: 1000 + i, port: port + i }])),
  };
}

/** A version whose services did not come up: `start_failed` or `unhealthy`, with `message`. */
export function notHealthy(outcome: 'start_failed' | 'unhealthy', message: string): EnvCreateResult {
  return { outcome, message, started_in_ms: 5, healthy_in_ms: null, endpoints: [], datasets: [], egress: { ok: true, target: 'control plane', detail: 'reachable' }, services: {} };
}

export type SnapshotResult = Commands['env.snapshot']['result'];
