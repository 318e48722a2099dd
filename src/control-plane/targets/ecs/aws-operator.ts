/**
 * The operator's AWS credentials (`denv server --aws-operator-credentials <file>`): the principal
 * that assumes teams' roles and, as the AWS Organization's management account (or a delegated
 * administrator), creates vended accounts (aws-access.ts). A JSON file, readable by its owner only
 * (as an ssh key must be), with a closed set of fields:
 *
 *   {"access_key_id": "AKIA…", "secret_access_key": "…", "region": "us-east-1",
 *    "session_token": "…"?, "endpoint": "https://…"?}
 *
 * `region` is where STS is called (any enabled region works); `endpoint` sends every call to an
 * AWS-compatible API instead (tests: the local AWS API server).
 */
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { describeZodError } from '../../../contracts/validation.js';
import type { EcsCredentials } from './aws-clients.js';

const operatorFile = z.strictObject({
  access_key_id: z.string().min(16).max(128).regex(/^[A-Z0-9]+$/, 'expected an access key id (capital letters and digits)'),
  secret_access_key: z.string().min(16).max(256),
  session_token: z.string().min(1).max(4096).optional(),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'expected an AWS region such as us-east-1'),
  endpoint: z.string().max(2048).refine((u) => /^https?:\/\//.test(u) && URL.canParse(u), 'expected an http(s) URL').optional(),
});

/** Reads and checks the file; throws a message naming the file and the problem. */
export function readOperatorCredentials(file: string): EcsCredentials {
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) throw new Error(`${file}: the AWS operator credentials must be readable by their owner only (mode ${mode.toString(8)}; chmod 600 ${file})`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = operatorFile.safeParse(json);
  if (!parsed.success) throw new Error(`${file}: ${describeZodError(parsed.error)}`);
  const f = parsed.data;
  return {
    accessKeyId: f.access_key_id,
    secretAccessKey: f.secret_access_key,
    region: f.region,
    ...(f.session_token ? { sessionToken: f.session_token } : {}),
    ...(f.endpoint ? { endpoint: f.endpoint } : {}),
  };
}
