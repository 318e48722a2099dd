import { chmodSync, existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { newId } from '../contracts/ids.js';
import { hashSecret } from './auth/secrets.js';
import { issueToken } from './api/auth.js';
import type { Db } from './store/db.js';

/**
 * On first start: the `default` team and an admin token, written to `<dataDir>/admin-token`
 * (mode 0600) and stored only as a hash. On later starts the file's token is reused while the
 * database still knows it; otherwise (a new data dir on a shared server) a fresh one is issued.
 */
export async function ensureAdminToken(db: Db, dataDir: string): Promise<{ token: string; team: string }> {
  const file = join(dataDir, 'admin-token');
  let team = (await db.query<{ id: string }>("select id from teams where name = 'default'"))[0]?.id;
  if (!team) {
    team = newId('team');
    await db.query("insert into teams (id, name) values ($1, 'default') on conflict (name) do nothing", [team]);
    team = (await db.query<{ id: string }>("select id from teams where name = 'default'"))[0]!.id;
  }
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    const rows = await db.query<{ team: string }>('select team from api_tokens where hash = $1 and admin and revoked_at is null', [hashSecret(token)]);
    if (rows[0]) {
      chmodSync(file, 0o600); // a file written by hand or by an older version
      return { token, team: rows[0].team };
    }
  }
  const { token } = await issueToken(db, team, 'admin', true);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return { token, team };
}
