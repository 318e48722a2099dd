/**
 * A route is data: method, path, the zod schemas of its body and query, who may call it, and a
 * handler. The same list registers the Fastify routes and generates `/openapi.json`, so the
 * schema that validates a request is the one the document shows.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Bus } from '../bus.js';
import type { Engine } from '../operations/engine.js';
import type { AgentGateway } from '../gateway/agent-gateway.js';
import type { Db } from '../store/db.js';
import type { StreamHub } from './stream-hub.js';
import type { SourceResolver } from '../source/source-resolver.js';
import type { SpecLoader } from './spec-loader.js';
import type { TokenCache } from './token-cache.js';
import type { AwsAccess } from '../targets/ecs/aws-access.js';

/** What a team token may do, weakest first: `read` (GET), `deploy` (also deploy and operate
 *  envs), `admin` (also tokens, enrollment keys, hosts, and `reveal=true` on reads). */
export const SCOPES = ['read', 'deploy', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Auth {
  readonly team: string;
  readonly tokenId: string;
  /** The instance's admin token (creates teams). */
  readonly admin: boolean;
  readonly scope: Scope;
}

export interface ApiContext {
  readonly db: Db;
  readonly bus: Bus;
  readonly engine: Engine;
  readonly agents: AgentGateway;
  /** How the control plane acts in AWS accounts (aws_ecs envs; the operator's credentials for vending). */
  readonly aws: AwsAccess;
  /** Event streams: per-token caps and the shared pollers. */
  readonly streams: StreamHub;
  /** Compose documents are loaded into Specs here, off the API's thread (spec-loader.ts). */
  readonly specs: SpecLoader;
  /** Linked repositories: fetched, refs resolved, Compose files read (source/source-resolver.ts). */
  readonly sources: SourceResolver;
  /** Token lookups remembered for a moment: the embedded store only (token-cache.ts). */
  readonly tokens?: TokenCache;
  /** Snapshot retention: healthy versions kept besides the current one (default DEFAULT_KEEP_SNAPSHOTS). */
  readonly keepSnapshots?: number;
}

export interface Call<B, Q> {
  readonly auth: Auth;
  readonly body: B;
  readonly query: Q;
  readonly params: Record<string, string>;
  readonly req: FastifyRequest;
  readonly reply: FastifyReply;
}

export interface RouteDef<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType> {
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  readonly url: string;
  readonly summary: string;
  /** `admin`: only the admin token. Default: any valid team token. */
  readonly access?: 'token' | 'admin';
  /** The scope a team token needs (default: `read` for GET, `deploy` otherwise). */
  readonly scope?: Scope;
  /** Largest body accepted (default SMALL_BODY_LIMIT; routes that take Compose raise it). */
  readonly bodyLimit?: number;
  readonly body?: B;
  readonly query?: Q;
  /** Status of a successful answer (default 200). */
  readonly status?: number;
  /** Answers a JSON value; or takes over the reply (SSE) and answers undefined. */
  handler(ctx: ApiContext, call: Call<z.output<B>, z.output<Q>>): Promise<unknown>;
}

/** Bodies of routes that take no Compose are small; Compose (inline files included) may be large. */
export const SMALL_BODY_LIMIT = 64 * 1024;
export const COMPOSE_BODY_LIMIT = 4 * 1024 * 1024;

/** Identity helper that keeps B and Q inferred per route. */
export function route<B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined>(def: RouteDef<B, Q>): RouteDef {
  return def as unknown as RouteDef;
}
