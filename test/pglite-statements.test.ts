/** The embedded database runs each statement text as a named prepared statement, prepared once
 *  (store/pglite-statements.ts): same answers as a fresh parse, fewer parses, a schema change
 *  honoured, errors unchanged, and a bounded number of statements kept. Through the real worker. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPGlite } from '../src/control-plane/store/pglite-db.js';
import { MAX_PREPARED } from '../src/control-plane/store/pglite-statements.js';
import type { Db } from '../src/control-plane/store/db.js';
import { freshDataDir } from './helpers/stores.js';

describe('prepared statements on the embedded database', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPGlite(freshDataDir());
  });
  afterAll(async () => {
    await db?.close();
  });

  /** How many prepared statements hold `text`. */
  const preparedAs = async (text: string) => (await db.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements where statement = $1', [text]))[0]!.n;

  it('a text is prepared once and run again with new parameters, each run answering for its own', async () => {
    await db.exec('create table pets (id text primary key, legs int not null)');
    const insert = 'insert into pets (id, legs) values ($1, $2) returning id, legs';
    const byId = 'select legs from pets where id = $1';
    expect(await db.query(insert, ['cat', 4])).toEqual([{ id: 'cat', legs: 4 }]);
    expect(await db.query(insert, ['hen', 2])).toEqual([{ id: 'hen', legs: 2 }]);
    expect(await db.query(byId, ['cat'])).toEqual([{ legs: 4 }]);
    expect(await db.query(byId, ['hen'])).toEqual([{ legs: 2 }]);
    expect(await db.query(byId, ['owl'])).toEqual([]);
    expect(await preparedAs(insert)).toBe(1);
    expect(await preparedAs(byId)).toBe(1);
  });

  it('parameters and columns keep their types: timestamps as Dates, jsonb as values, int8 as numbers, arrays, booleans, nulls', async () => {
    const sql = `select $1::timestamptz as at, $2::jsonb as doc, $3::int8 as big, $4::text[] as tags, $5::boolean as yes, $6::text as nothing,
                        cardinality($4::text[]) as n`;
    const at = new Date('2026-12-06T10:00:00.000Z');
    for (let run = 0; run < 7; run++) {
      // PostgreSQL plans a prepared statement afresh for its first five runs, then may keep one plan: runs past that answer alike.
      const [row] = await db.query<Record<string, unknown>>(sql, [at, JSON.stringify({ run, list: [1, 'a'] }), 2 ** 40 + run, ['a', 'b,c'], run % 2 === 0, null]);
      expect(row).toEqual({ at, doc: { run, list: [1, 'a'] }, big: 2 ** 40 + run, tags: ['a', 'b,c'], yes: run % 2 === 0, nothing: null, n: 2 });
    }
  });

  it('a schema change is honoured, made through exec or query: a `select *` prepared before it returns the new columns after it', async () => {
    await db.exec('create table boxes (id text primary key)');
    await db.query("insert into boxes (id) values ('b1')");
    const all = 'select * from boxes order by id';
    expect(await db.query(all)).toEqual([{ id: 'b1' }]);
    // Without forgetting what was prepared, PostgreSQL refuses: "cached plan must not change result type".
    await db.exec("alter table boxes add column colour text not null default 'red'");
    expect(await db.query(all)).toEqual([{ id: 'b1', colour: 'red' }]);
    await db.tx(async (tx) => {
      await tx.exec('alter table boxes add column size int');
      expect(await tx.query(all)).toEqual([{ id: 'b1', colour: 'red', size: null }]);
    });
    // Through query too.
    await db.query('alter table boxes drop column colour');
    expect(await db.query(all)).toEqual([{ id: 'b1', size: null }]);
  });

  it('errors keep their fields, a text that fails to prepare is not kept, and the connection goes on', async () => {
    await db.exec('create table keys (k text primary key)');
    const insert = 'insert into keys (k) values ($1)';
    await db.query(insert, ['a']);
    await expect(db.query(insert, ['a'])).rejects.toMatchObject({ code: '23505', constraint: 'keys_pkey' });
    await expect(db.query(insert, [null])).rejects.toMatchObject({ code: '23502', column: 'k' });
    const bad = 'selec k from keys';
    await expect(db.query(bad)).rejects.toMatchObject({ code: '42601' });
    expect(await preparedAs(bad)).toBe(0);
    await expect(db.query('select nope from keys')).rejects.toMatchObject({ code: '42703' });
    // A failed statement in a transaction aborts it; after its rollback the same texts run again.
    await expect(db.tx(async (tx) => {
      await tx.query(insert, ['b']);
      await tx.query(insert, ['b']);
    })).rejects.toMatchObject({ code: '23505' });
    expect(await db.query<{ k: string }>('select k from keys order by k')).toEqual([{ k: 'a' }]);
    await db.query(insert, ['b']);
    expect(await db.query<{ k: string }>('select k from keys order by k')).toEqual([{ k: 'a' }, { k: 'b' }]);
  });

  it(`keeps at most ${MAX_PREPARED} texts prepared: texts made per call close the least recently used`, async () => {
    await db.exec('create table counters (n int)'); // forgets (and later closes) what earlier tests prepared
    const kept = 'select count(*)::int as n from counters';
    await db.query(kept);
    const nameOf = async (text: string) => (await db.query<{ name: string }>('select name from pg_prepared_statements where statement = $1', [text])).map((r) => r.name);
    const keptAs = await nameOf(kept);
    for (let i = 0; i < MAX_PREPARED + 50; i++) {
      await db.query(`select ${i} as n`);
      if (i % 50 === 0) await db.query(kept); // used often: never the least recently used
    }
    const { n } = (await db.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements'))[0]!;
    // The last text to go is closed with the next preparation; the count's own text is one of them.
    expect(n).toBeLessThanOrEqual(MAX_PREPARED + 1);
    expect(n).toBeGreaterThanOrEqual(MAX_PREPARED - 1);
    expect(await nameOf(kept)).toEqual(keptAs); // the same statement throughout, never closed and made again
    expect(await preparedAs('select 0 as n')).toBe(0);
    expect(await preparedAs(`select ${MAX_PREPARED + 49} as n`)).toBe(1);
  });
});
