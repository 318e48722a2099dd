import { describe, expect, it } from 'vitest';
import { btrfsVersion, subvolumeCreate, subvolumeDelete, subvolumeSnapshot } from './btrfs-argv.js';

describe('btrfs argv', () => {
  it('builds exact command lines, paths after --', () => {
    expect(subvolumeCreate('/d/env/live/db')).toEqual(['btrfs', 'subvolume', 'create', '--', '/d/env/live/db']);
    expect(subvolumeSnapshot('/a', '/b', true)).toEqual(['btrfs', 'subvolume', 'snapshot', '-r', '--', '/a', '/b']);
    expect(subvolumeSnapshot('/a', '/-b', false)).toEqual(['btrfs', 'subvolume', 'snapshot', '--', '/a', '/-b']);
    expect(subvolumeDelete(['/x', '/y'])).toEqual(['btrfs', 'subvolume', 'delete', '--', '/x', '/y']);
    expect(btrfsVersion()).toEqual(['btrfs', '--version']);
  });
});
