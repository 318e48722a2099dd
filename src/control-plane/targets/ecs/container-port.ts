/**
 * Which port an ECS task's container listens on: the port its security group opens, its port
 * mapping, and the port of its endpoints (`http://<public ip>:<port>`).
 *
 * Precedence, first hit wins:
 *  1. the instructions ("port 3000", "PORT=3000", "listens on 3000", "listening on :3000") — the
 *     user's words at plan time, re-plan guidance included, override the Compose file, as seed 002
 *     says the port is "inferred from your instructions";
 *  2. the spec's service: its `x-denv.edge.port` (the port to route to when it has several), else
 *     its first port (`ports`/`expose`), else the port of its HTTP health check;
 *  3. 8080.
 * Within the instructions the earliest mention wins; numbers outside 1–65535 are not ports.
 */
import type { ServiceSpec } from '../../../contracts/spec-types.js';

export const DEFAULT_CONTAINER_PORT = 8080;

export const PORT_SOURCES = ['instructions', 'spec', 'default'] as const;
export type PortSource = (typeof PORT_SOURCES)[number];

// Each pattern captures the number; `\b` keeps "port 30000x" or "export 3000" out.
const PATTERNS: readonly RegExp[] = [
  /\bports?\s*(?:[:=#]|is|of)?\s*:?(\d{1,5})\b/gi,
  /\blisten(?:s|ing)?\s+on\s+(?:port\s+)?(?:[\w.-]*:)?(\d{1,5})\b/gi,
  /\bexpos(?:e|es|ed|ing)\s+(?:port\s+)?(\d{1,5})\b/gi,
];

/** The first port the instructions name, or null. */
export function portFromInstructions(instructions: string): number | null {
  let best: { at: number; port: number } | null = null;
  for (const pattern of PATTERNS) {
    for (const m of instructions.matchAll(pattern)) {
      const port = Number(m[1]);
      if (port < 1 || port > 65535) continue;
      if (!best || m.index < best.at) best = { at: m.index, port };
    }
  }
  return best?.port ?? null;
}

/** The port the spec's service declares, or null. */
export function portFromService(service: ServiceSpec): number | null {
  if (service.edge?.port) return service.edge.port;
  if (service.ports.length > 0) return service.ports[0]!;
  if (service.health.kind === 'http' && service.health.port) return service.health.port;
  return null;
}

export function containerPort(service: ServiceSpec, instructions: string): { readonly port: number; readonly from: PortSource } {
  const told = portFromInstructions(instructions);
  if (told !== null) return { port: told, from: 'instructions' };
  const declared = portFromService(service);
  if (declared !== null) return { port: declared, from: 'spec' };
  return { port: DEFAULT_CONTAINER_PORT, from: 'default' };
}
