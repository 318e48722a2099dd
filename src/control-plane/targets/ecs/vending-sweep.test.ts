/**
 * The vending sweep on a real embedded store against the local AWS API server (Organizations
 * speaks AWS JSON 1.1 and vends accounts with their own state): CreateAccount is asked once per
 * account however many sweeps run at once; a claim left without a request id (a control plane
 * stopped between asking and storing) fails the account instead of asking twice; an account not
 * ready takes no env.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAwsApiServer, type FakeAws } from '../../../../test/helpers/aws-api-server.js';
import { freshDataDir, seedPGlite } from '../../../../test/helpers/stores.js';
import { openStore, type OpenedStore } from '../../store/open-store.js';
import { AwsAccess } from './aws-access.js';
import { chooseAwsAccount } from './ecs-accounts.js';
import { CLAIM_GRACE_MS, sweepVending } from './vending-sweep.js';

const OPERATOR = { accessKeyId: 'AKIADENVOPERATOR0001', secretAccessKey: 'denv-operator-secret-0000000000000000' };

describe('sweepVending', () => {
  let store: OpenedStore;
  let aws: FakeAws;
  let access: AwsAccess;
  let n = 0;
  const logged: string[] = [];
  const log = (line: string) => logged.push(line);

  beforeAll(async () => {
    const dataDir = freshDataDir();
    seedPGlite(dataDir);
    store = await openStore({ dataDir });
    await store.db.query("insert into teams (id, name) values ('team_v', 'v')");
  });
  afterEach(async () => {
    await aws?.close();
  });
  afterAll(async () => {
    await store.close();
  });

  const start = async (vendPolls = 1) => {
    aws = await startAwsApiServer({ ...OPERATOR, region: 'us-east-1', vendPolls });
    access = new AwsAccess({ ...OPERATOR, region: 'us-east-1', endpoint: aws.url });
  };
  const vending = async (email: string) => {
    const id = `aws_v${++n}`;
    await store.db.query(
      "insert into aws_accounts (id, team, name, region, kind, state, vend_email, vend_account_name) values ($1, 'team_v', $2, 'eu-central-1', 'vended', 'vending', $3, $2)",
      [id, `acct-${n}`, email],
    );
    return id;
  };
  const row = async (id: string) => (await store.db.query<{ state: string; vend_request_id: string | null; failure_reason: string | null; account_id: string | null }>('select state, vend_request_id, failure_reason, account_id from aws_accounts where id = $1', [id]))[0]!;
  const creates = () => aws.operations().filter((op) => op === 'organizations:CreateAccount').length;

  it('asks Organizations once, however many sweeps run at once, and is ready when it succeeded', async () => {
    await start(1);
    const id = await vending('once@example.com');
    await Promise.all([sweepVending(store.db, access, log), sweepVending(store.db, access, log), sweepVending(store.db, access, log)]);
    expect(creates()).toBe(1);
    expect((await row(id)).vend_request_id).toMatch(/^car-/);
    // vendPolls 1: one status read says IN_PROGRESS, the next the outcome.
    await sweepVending(store.db, access, log);
    expect((await row(id)).state).toBe('vending');
    await sweepVending(store.db, access, log);
    const done = await row(id);
    expect(done.state).toBe('ready');
    expect(done.account_id).toMatch(/^\d{12}$/);
    expect(creates()).toBe(1);
  });

  it('fails an account whose claim has no request id after the grace, never asking a second time', async () => {
    await start(0);
    const id = await vending('lost@example.com');
    await store.db.query("update aws_accounts set vend_started_at = now() - ($2 || ' milliseconds')::interval where id = $1", [id, String(CLAIM_GRACE_MS + 1000)]);
    await sweepVending(store.db, access, log);
    expect(await row(id)).toMatchObject({ state: 'failed', vend_request_id: null });
    expect((await row(id)).failure_reason).toBe('the control plane stopped while asking AWS Organizations to create the account: look in the organization for account "acct-' + id.slice(5) + '" (lost@example.com) before adding it again');
    expect(creates()).toBe(0);
  });

  it('leaves a fresh claim without a request id alone: another control plane may be asking right now', async () => {
    await start(0);
    const id = await vending('inflight@example.com');
    await store.db.query('update aws_accounts set vend_started_at = now() where id = $1', [id]);
    await sweepVending(store.db, access, log);
    expect(await row(id)).toMatchObject({ state: 'vending', vend_request_id: null });
    expect(creates()).toBe(0);
  });

  it('an account not ready takes no env, saying why', async () => {
    await start(5);
    const id = await vending('slow@example.com');
    const name = `acct-${id.slice(5)}`;
    await expect(chooseAwsAccount(store.db, 'team_v', null, name)).rejects.toThrow(`AWS account ${name} is still being created by AWS Organizations`);
    await store.db.query("update aws_accounts set state = 'failed', failure_reason = 'ACCOUNT_LIMIT_EXCEEDED' where id = $1", [id]);
    await expect(chooseAwsAccount(store.db, 'team_v', null, name)).rejects.toThrow(`AWS account ${name} could not be created: ACCOUNT_LIMIT_EXCEEDED`);
  });
});
