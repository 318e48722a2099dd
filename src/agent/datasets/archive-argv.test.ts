/**
 * The archive command lines of `env move`, on their exact output: the options each builder sets,
 * and paths after `--`, so a path starting with '-' is never read as an option.
 */
import { describe, expect, it } from 'vitest';
import { btrfsReceive, btrfsSend, tarCreate, tarExtract } from './archive-argv.js';

describe('archive argv', () => {
  it('builds exact command lines', () => {
    expect(tarCreate('/t/tr_1.out.tmp', '/d/env_a/snapshots/s', ['data', 'other'])).toEqual([
      'tar', '--create', '--file', '/t/tr_1.out.tmp', '--directory', '/d/env_a/snapshots/s', '--numeric-owner', '--sparse', '--', 'data', 'other',
    ]);
    expect(tarExtract('/t/tr_1.in', '/d/env_a/snapshots/.import-s-0a1b2c3d')).toEqual([
      'tar', '--extract', '--file', '/t/tr_1.in', '--directory', '/d/env_a/snapshots/.import-s-0a1b2c3d', '--numeric-owner', '--same-owner', '--same-permissions',
    ]);
    expect(btrfsSend('/t/tr_1.out.tmp', ['/d/s/data', '/d/s/other'])).toEqual(['btrfs', '-q', 'send', '-f', '/t/tr_1.out.tmp', '--', '/d/s/data', '/d/s/other']);
    expect(btrfsReceive('/t/tr_1.in', '/d/env_a/snapshots/.import-s')).toEqual(['btrfs', '-q', 'receive', '-C', '-f', '/t/tr_1.in', '--', '/d/env_a/snapshots/.import-s']);
  });

  it('puts a name or path starting with "-" after "--"', () => {
    const create = tarCreate('/f', '/d', ['-data', '--to-command=sh']);
    expect(create.slice(-3)).toEqual(['--', '-data', '--to-command=sh']);
    expect(create.indexOf('--')).toBe(create.length - 3);
    const send = btrfsSend('/f', ['-e']);
    expect(send.slice(-2)).toEqual(['--', '-e']);
    const receive = btrfsReceive('/f', '-dir');
    expect(receive.slice(-2)).toEqual(['--', '-dir']);
    // An empty list of names still ends with '--' (nothing after it to be read as an option).
    expect(tarCreate('/f', '/d', []).at(-1)).toBe('--');
  });
});
