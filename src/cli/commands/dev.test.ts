import { describe, expect, it } from 'vitest';
import type { Env, Host } from '../../contracts/domain.js';
import { agentArgv } from '../agent-child.js';
import { redactUrl } from './server.js';
import { clientFlagsFor, formatBanner, isFreshlyConnected, localAgentFlags } from './dev.js';

const env: Env = {
  id: 'env_1',
  name: 'production',
  project: 'prj_1',
  stage: 'production',
  status: 'running',
  target: 'host',
  aws_account: null,
  current_version: 'ver_1',
  parent_version: null,
  host: 'host_1',
  edge: null,
  endpoints: [{ service: 'web', url: 'http://127.0.0.1:20001' }],
  last_error: null,
  created_at: '2025-01-01T00:00:00Z',
};

describe('denv dev', () => {
  it('runs the agent as `denv agent` with the control URL and its own data dir (the key goes in the environment)', () => {
    expect(agentArgv('/pkg/bin/denv', 'http://127.0.0.1:4600', '/d/agent')).toEqual(['/pkg/bin/denv', 'agent', '--control', 'http://127.0.0.1:4600', '--data-dir', '/d/agent']);
    expect(agentArgv('/pkg/bin/denv', 'http://127.0.0.1:4600', '/d/agent', '/etc/denv/agent.yaml')).toEqual(['/pkg/bin/denv', 'agent', '--control', 'http://127.0.0.1:4600', '--data-dir', '/d/agent', '--config', '/etc/denv/agent.yaml']);
  });

  it('hands --ports to the local agent after the flags it already passes', () => {
    expect(localAgentFlags({})).toEqual([]);
    expect(localAgentFlags({ ports: { min: 30000, max: 30099 } })).toEqual(['--ports', '30000-30099']);
    const extra = ['--workloads', '/d-workloads', ...localAgentFlags({ ports: { min: 30000, max: 30099 } })];
    expect(agentArgv('/pkg/bin/denv', 'http://127.0.0.1:4600', '/d/agent', undefined, extra)).toEqual(['/pkg/bin/denv', 'agent', '--control', 'http://127.0.0.1:4600', '--data-dir', '/d/agent', '--workloads', '/d-workloads', '--ports', '30000-30099']);
  });

  it('names the local host, the name signed envelopes bind to', () => {
    const base = { url: 'u', adminToken: 't', tokenFile: 'f', app: null, example: false, clientFlags: '' };
    expect(formatBanner({ ...base, host: { name: 'build-box', id: 'host_1' } })).toContain('  host: build-box  (host_1; signed envelopes bind to this name)\n');
    expect(formatBanner({ ...base, host: { name: 'build-box', id: null } })).toContain('  host: build-box  (not connected yet; signed envelopes bind to this name)\n');
  });

  it('prints the UI link with the token, the API, the app and a deploy hint', () => {
    const text = formatBanner({ url: 'http://127.0.0.1:4600', adminToken: 'tok_x', tokenFile: '/d/admin-token', app: env, example: true, clientFlags: '' });
    expect(text).toContain('  UI:   http://127.0.0.1:4600/#token=tok_x');
    expect(text).toContain('  API:  http://127.0.0.1:4600  (token in /d/admin-token)');
    expect(text).toContain('  app:  web → http://127.0.0.1:20001');
    expect(text).toContain('  denv deploy -f compose.yaml --project hello\n');
  });

  it('says when the example is not serving, and leaves the app out with --no-example', () => {
    const failed = formatBanner({ url: 'u', adminToken: 't', tokenFile: 'f', app: { ...env, endpoints: [], last_error: 'prepare: unhealthy' }, example: true, clientFlags: '' });
    expect(failed).toContain('  app:  not serving (prepare: unhealthy); see the deployment above');
    expect(formatBanner({ url: 'u', adminToken: 't', tokenFile: 'f', app: null, example: false, clientFlags: '' })).not.toContain('  app:  ');
  });

  it('waits for a host that connected during this run, not a stale record', () => {
    const since = Date.parse('2025-01-01T00:00:10Z');
    const host = { status: 'connected', last_heartbeat_at: '2025-01-01T00:00:11Z' } as Host;
    expect(isFreshlyConnected(host, since)).toBe(true);
    expect(isFreshlyConnected({ ...host, last_heartbeat_at: '2025-01-01T00:00:09Z' }, since)).toBe(false);
    expect(isFreshlyConnected({ ...host, status: 'degraded' }, since)).toBe(false);
    expect(isFreshlyConnected({ ...host, last_heartbeat_at: null }, since)).toBe(false);
  });

  it('adds --port / --data-dir to hints only when they differ from the defaults', () => {
    expect(clientFlagsFor(4600, './.denv')).toBe('');
    expect(clientFlagsFor(4700, '/tmp/d')).toBe(' --port 4700 --data-dir /tmp/d');
  });
});

describe('denv server', () => {
  it('hides the database password in the banner', () => {
    expect(redactUrl('postgres://denv:s3cret@db:5432/denv')).toBe('postgres://denv:***@db:5432/denv');
    expect(redactUrl('not a url')).toBe('(unparsable URL)');
  });
});
