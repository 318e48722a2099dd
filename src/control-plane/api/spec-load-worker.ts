/**
 * The worker thread of spec-loader.ts: loads one Compose document per message, in order, and
 * answers with the Spec or with the refusal (a DenvError's code and message, which the API
 * returns as they are). Anything else thrown is reported as a crash of the load.
 */
import { parentPort } from 'node:worker_threads';
import { validateComposeSchema } from '../../contracts/compose/schema.js';
import { isDenvError, messageOf, type ErrorCode } from '../../contracts/errors.js';
import { loadSpec } from '../../contracts/load-spec.js';
import type { Spec } from '../../contracts/spec-types.js';

export interface SpecLoadRequest {
  readonly id: number;
  readonly compose: string | Readonly<Record<string, unknown>>;
  /** Where relative paths resolve (loadSpec); default `/`. */
  readonly projectDir?: string;
}

export type SpecLoadReply =
  | { readonly id: number; readonly spec: Spec }
  | { readonly id: number; readonly refused: { readonly code: ErrorCode; readonly message: string } }
  | { readonly id: number; readonly crashed: string };

// The validator's first run, before the first document: a request should not pay for its warm-up.
validateComposeSchema({ services: {} });

parentPort!.on('message', (req: SpecLoadRequest) => {
  void loadSpec(req.compose, { projectDir: req.projectDir }).then(
    (spec): SpecLoadReply => ({ id: req.id, spec }),
    (err: unknown): SpecLoadReply => (isDenvError(err) ? { id: req.id, refused: { code: err.code, message: err.message } } : { id: req.id, crashed: messageOf(err) }),
  ).then((reply) => parentPort!.postMessage(reply));
});
parentPort!.postMessage({ ready: true });
