import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Project } from '../../contracts/domain.js';
import { CliError } from '../cli-error.js';
import { formatProject, LLM_KEY_ENV, parseLlmUrl, plannerBody } from './project.js';

const KEY = 'sk-test-4c1e9a0b7d2f5e83';
const URL_ = 'https://api.openai.com/v1';

/** The CliError a call throws (fails the test when it resolves). */
async function usage(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(CliError);
  expect((err as CliError).code).toBe('USAGE');
  return (err as CliError).message;
}

describe('denv project planner', () => {
  let dir: string;
  let savedKey: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'denv-planner-'));
    savedKey = process.env[LLM_KEY_ENV];
    delete process.env[LLM_KEY_ENV];
  });
  afterEach(() => {
    if (savedKey === undefined) delete process.env[LLM_KEY_ENV];
    else process.env[LLM_KEY_ENV] = savedKey;
  });
  const keyFile = (content: string) => {
    const file = join(dir, 'key');
    writeFileSync(file, content);
    return file;
  };

  it('sends the endpoint with the key read from a file (its line end dropped), or from DENV_LLM_KEY', async () => {
    expect(await plannerBody({ llmUrl: URL_, model: 'gpt-4.1-mini', keyFile: keyFile(`${KEY}\n`) })).toEqual({ planner: { kind: 'llm', url: URL_, model: 'gpt-4.1-mini', key: KEY } });
    process.env[LLM_KEY_ENV] = KEY;
    expect(await plannerBody({ llmUrl: URL_, model: 'm' })).toEqual({ planner: { kind: 'llm', url: URL_, model: 'm', key: KEY } });
    // The file wins over the environment.
    expect((await plannerBody({ llmUrl: URL_, model: 'm', keyFile: keyFile('sk-from-file') })).planner?.key).toBe('sk-from-file');
  });

  it('--deterministic clears the planner, and takes no LLM flag beside it', async () => {
    expect(await plannerBody({ deterministic: true })).toEqual({ planner: null });
    expect(await usage(plannerBody({ deterministic: true, model: 'm', keyStdin: true }))).toBe('--deterministic clears the LLM planner: leave out --model, --key-stdin');
  });

  it('names what is missing', async () => {
    expect(await usage(plannerBody({}))).toBe(`say which planner: --llm-url <url> --model <name> (the key in --key-file, --key-stdin or ${LLM_KEY_ENV}), or --deterministic`);
    expect(await usage(plannerBody({ llmUrl: URL_, keyFile: keyFile(KEY) }))).toBe('missing --model <name> (e.g. gpt-4.1-mini)');
    expect(await usage(plannerBody({ model: 'm' }))).toBe("missing --llm-url <url> (the endpoint's base URL, e.g. https://api.openai.com/v1)");
    expect(await usage(plannerBody({ llmUrl: URL_, model: 'm' }))).toBe(`the API key is needed: --key-file <file>, --key-stdin, or set ${LLM_KEY_ENV} (never as an argument: a command line shows in ps)`);
    expect(await usage(plannerBody({ llmUrl: URL_, model: 'm', keyFile: keyFile(KEY), keyStdin: true }))).toBe('give the API key in --key-file or on stdin (--key-stdin), not both');
  });

  it('refuses a key file it cannot use, without quoting its content', async () => {
    const missing = join(dir, 'nope');
    expect(await usage(plannerBody({ llmUrl: URL_, model: 'm', keyFile: missing }))).toBe(`cannot read the key file ${missing}: ENOENT`);
    const empty = keyFile(' \n');
    expect(await usage(plannerBody({ llmUrl: URL_, model: 'm', keyFile: empty }))).toBe(`the key file ${empty} is empty`);
    const twoLines = keyFile(`OPENAI_API_KEY=${KEY}\nOTHER=1\n`);
    const message = await usage(plannerBody({ llmUrl: URL_, model: 'm', keyFile: twoLines }));
    expect(message).toBe(`the key file ${twoLines} holds several lines: put only the API key in it`);
    expect(message).not.toContain(KEY);
  });

  it('takes the base URL of an http(s) endpoint', () => {
    expect(parseLlmUrl('https://api.openai.com/v1/')).toBe(URL_);
    expect(parseLlmUrl('http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1');
    expect(() => parseLlmUrl('api.openai.com/v1')).toThrow(InvalidArgumentError);
    expect(() => parseLlmUrl('ftp://example.com/v1')).toThrow("expected the endpoint's http(s) base URL, such as https://api.openai.com/v1");
    expect(() => parseLlmUrl('https://api.openai.com/v1/chat/completions')).toThrow('expected the base URL: leave out /chat/completions (https://api.openai.com/v1)');
  });

  it('shows the planner in denv project show: the URL and model, or deterministic', () => {
    const project: Project = {
      id: 'prj_1', name: 'shop', team: 'team_1', compose: null, repo: null, branch: null, compose_path: 'compose.yaml', auto_upgrade: false, webhook_secret: false,
      git_credentials: null, registry_credentials: null, planner: { kind: 'llm', url: URL_, model: 'gpt-4.1-mini' }, approval: 'required', require_signed: false, base_domain: null, created_at: '2030-01-01T00:00:00Z',
    };
    expect(formatProject(project)).toMatch(/^planner: +llm: gpt-4\.1-mini at https:\/\/api\.openai\.com\/v1$/m);
    expect(formatProject({ ...project, planner: null })).toMatch(/^planner: +deterministic$/m);
  });
});
