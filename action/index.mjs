// The denv GitHub Action (action.yml): sign an envelope and post it to an agent.
//
// Self-contained on purpose: a `node20` action runs this file as checked out, with no
// `npm install`, so it uses Node's built-ins only. The envelope it makes is the one
// docs/envelope.md fixes — ECDSA P-256 over SHA-256 of the exact payload bytes, DER signature,
// both base64 — and its tests post it to a real agent (test/action.test.ts).
import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** States that pass the job; `success_degraded` only when not strict. */
export const PASSING = ['success', 'no_op', 'success_degraded', 'preflight_ok'];

/** Whether the job passes for this terminal state (pure). */
export function passes(state, strict) {
  if (state === 'success_degraded') return !strict;
  return PASSING.includes(state);
}

/** GitHub passes input `agent-url` as the environment variable `INPUT_AGENT-URL`. */
export function input(env, name) {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

/** `10m`, `30s`, `1h`, `1m30s`, `500ms`, or a number of seconds → milliseconds; null when unreadable. */
export function durationMs(text) {
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const units = { h: 3600000, m: 60000, s: 1000, ms: 1 };
  let total = 0;
  let rest = text;
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ms|h|m|s)/.exec(rest);
    if (!m) return null;
    total += Number(m[1]) * units[m[2]];
    rest = rest.slice(m[0].length);
  }
  return text.length > 0 ? Math.round(total) : null;
}

/** The payload (DESIGN "Contract details": service, repository, digest, host, expires_at, nonce, env?, health?, edge?). */
export function buildPayload(env, now = Date.now(), nonce = randomUUID()) {
  const image = input(env, 'image');
  const at = image.indexOf('@');
  if (at < 0 || !image.slice(at + 1).startsWith('sha256:')) throw new Error('input image: expected repository@sha256:… (a digest, not a tag)');
  const lifetime = durationMs(input(env, 'expires-in') || '10m');
  if (lifetime === null || lifetime <= 0) throw new Error('input expires-in: expected a duration such as 10m');
  const values = {};
  for (const line of input(env, 'env').split(/\r?\n/)) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error('input env: expected KEY=VALUE lines');
    values[line.slice(0, eq).trim()] = line.slice(eq + 1);
  }
  const healthPath = input(env, 'health-path');
  const healthTimeout = input(env, 'health-timeout');
  const hostnames = input(env, 'hostnames').split(/[\s,]+/).filter(Boolean);
  return {
    service: input(env, 'service'),
    repository: image.slice(0, at),
    digest: image.slice(at + 1),
    host: input(env, 'host'),
    expires_at: new Date(now + lifetime).toISOString(),
    nonce,
    ...(Object.keys(values).length > 0 ? { env: values } : {}),
    ...(healthPath ? { health: { path: healthPath, ...(healthTimeout ? { timeout: healthTimeout } : {}) } } : {}),
    ...(hostnames.length > 0 ? { edge: { hostnames } } : {}),
  };
}

/** {payload, signature}: base64 of the exact bytes, base64 of the DER ECDSA P-256 signature over them. */
export function signEnvelope(payload, pem) {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('input key: expected an ECDSA P-256 (prime256v1) private key');
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  return { payload: bytes.toString('base64'), signature: sign('sha256', bytes, { key, dsaEncoding: 'der' }).toString('base64') };
}

/** The per-stage table, as `denv preflight` prints it. */
export function formatStages(answer) {
  const rows = answer.stages.map((s) => [s.name, s.status, `${s.took_ms} ms`, s.detail ?? '']);
  const head = ['STAGE', 'STATUS', 'TOOK', 'DETAIL'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(head), ...rows.map(line), `state: ${answer.state}`, ...(answer.endpoint ? [`endpoint: ${answer.endpoint}`] : [])].join('\n');
}

export async function main(env = process.env, out = (s) => process.stdout.write(`${s}\n`)) {
  for (const name of ['agent-url', 'key', 'image', 'service', 'host']) if (!input(env, name)) throw new Error(`input ${name} is required`);
  const mode = input(env, 'mode') || 'deploy';
  if (mode !== 'deploy' && mode !== 'preflight') throw new Error('input mode: expected deploy or preflight');
  const strict = input(env, 'strict').toLowerCase() === 'true';
  const envelope = signEnvelope(buildPayload(env), input(env, 'key'));
  const url = `${input(env, 'agent-url').replace(/\/+$/, '')}/${mode}`;
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(envelope) });
  const answer = await res.json().catch(() => null);
  if (!answer || !Array.isArray(answer.stages)) throw new Error(`${url} answered HTTP ${res.status}: ${answer?.error?.message ?? 'no pipeline answer'}`);
  out(formatStages(answer));
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `state=${answer.state}\nendpoint=${answer.endpoint ?? ''}\n`);
  const ok = passes(answer.state, strict);
  if (!ok) out(`::error::denv ${mode} ended in ${answer.state}${answer.state === 'success_degraded' ? ' (strict)' : ''}`);
  return ok ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => (process.exitCode = code),
    (err) => {
      process.stdout.write(`::error::${err.message}\n`);
      process.exitCode = 1;
    },
  );
}
