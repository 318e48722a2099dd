import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Project } from '../../contracts/domain.js';
import { CliError } from '../cli-error.js';
import { formatProject, REGISTRY_PASSWORD_ENV, registryBody } from './project.js';

const PASSWORD = 'ghp_registry-test-7f3a9c';

async function usage(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(CliError);
  expect((err as CliError).code).toBe('USAGE');
  return (err as CliError).message;
}

describe('denv project registry', () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env[REGISTRY_PASSWORD_ENV];
    delete process.env[REGISTRY_PASSWORD_ENV];
  });
  afterEach(() => {
    if (saved === undefined) delete process.env[REGISTRY_PASSWORD_ENV];
    else process.env[REGISTRY_PASSWORD_ENV] = saved;
  });

  it('sends the server, user name and the password from DENV_REGISTRY_PASSWORD', async () => {
    process.env[REGISTRY_PASSWORD_ENV] = PASSWORD;
    expect(await registryBody({ server: 'ghcr.io', username: 'octocat' })).toEqual({ registry_credentials: { server: 'ghcr.io', username: 'octocat', password: PASSWORD } });
  });

  it('--clear forgets the login, and takes nothing beside it', async () => {
    expect(await registryBody({ clear: true })).toEqual({ registry_credentials: null });
    expect(await usage(registryBody({ clear: true, server: 'ghcr.io', passwordStdin: true }))).toBe('--clear forgets the registry login: leave out --server, --password-stdin');
  });

  it('names what is missing, before reading any password', async () => {
    process.env[REGISTRY_PASSWORD_ENV] = PASSWORD;
    expect(await usage(registryBody({}))).toBe('missing --server <host> (e.g. ghcr.io or registry.example.com:5000) and --username <name> (or --clear)');
    expect(await usage(registryBody({ server: 'ghcr.io' }))).toBe('missing --username <name> (or --clear)');
    delete process.env[REGISTRY_PASSWORD_ENV];
    expect(await usage(registryBody({ server: 'ghcr.io', username: 'octocat' }))).toBe(
      `the registry password is needed: pipe it with --password-stdin or set ${REGISTRY_PASSWORD_ENV} (never as an argument: a command line shows in ps)`,
    );
  });

  it('denv project show prints the server and user name, never a password', () => {
    const project: Project = {
      id: 'prj_1', name: 'shop', team: 'team_1', compose: null, repo: null, branch: null, compose_path: 'compose.yaml', auto_upgrade: false, webhook_secret: false,
      git_credentials: null, registry_credentials: { server: 'ghcr.io', username: 'octocat' }, planner: null, approval: 'auto', require_signed: false, base_domain: null, created_at: '2030-01-01T00:00:00Z',
    };
    expect(formatProject(project)).toMatch(/^registry: +ghcr\.io as octocat \(password set\)$/m);
    expect(formatProject({ ...project, registry_credentials: null })).toMatch(/^registry: +—$/m);
  });
});
