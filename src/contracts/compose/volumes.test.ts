/** Service volumes in long form: bind sources made absolute, named volumes kept as names. */
import { describe, expect, it } from 'vitest';
import { Problems } from './problems.js';
import { normalizeVolumes, parseVolumeSpec } from './volumes.js';

const ctx = { dir: '/srv/app', home: '/home/ann' };

describe('parseVolumeSpec (services.volumes short syntax)', () => {
  it.each([
    ['/var/lib/mysql', { type: 'volume', target: '/var/lib/mysql', volume: {} }],
    ['/data:ro', { type: 'volume', target: '/data', read_only: true, volume: {} }],
    ['db-data:/var/lib/postgresql/data', { type: 'volume', source: 'db-data', target: '/var/lib/postgresql/data', volume: {} }],
    ['cache:/cache:nocopy', { type: 'volume', source: 'cache', target: '/cache', volume: { nocopy: true } }],
    ['./static:/srv/static', { type: 'bind', source: '/srv/app/static', target: '/srv/static', bind: { create_host_path: true } }],
    ['../shared:/shared:ro', { type: 'bind', source: '/srv/shared', target: '/shared', read_only: true, bind: { create_host_path: true } }],
    ['/etc/localtime:/etc/localtime:ro,Z', { type: 'bind', source: '/etc/localtime', target: '/etc/localtime', read_only: true, bind: { create_host_path: true, selinux: 'Z' } }],
    ['~/configs:/etc/configs:rw,rshared', { type: 'bind', source: '/home/ann/configs', target: '/etc/configs', bind: { create_host_path: true, propagation: 'rshared' } }],
    ['.:/code:cached', { type: 'bind', source: '/srv/app', target: '/code', bind: { create_host_path: true } }],
  ])('%s', (spec, expected) => {
    expect(parseVolumeSpec(spec, ctx)).toEqual(expected);
  });

  it.each([
    ['a:/b:c:d', /is not \[SOURCE:\]TARGET\[:MODE\]/],
    ['data:/x:rx', /unknown volume mode "rx"/],
  ])('%s is refused', (spec, error) => {
    expect(() => parseVolumeSpec(spec, ctx)).toThrow(error);
  });

  it('refuses ~ without a home', () => {
    expect(() => parseVolumeSpec('~/x:/x', { dir: '/srv', home: undefined })).toThrow(/HOME is not set/);
  });
});

describe('normalizeVolumes', () => {
  it('resolves long-syntax bind sources and keeps the other fields', () => {
    const problems = new Problems();
    const out = normalizeVolumes(
      [
        { type: 'bind', source: './conf/nginx.conf', target: '/etc/nginx/nginx.conf', read_only: true },
        { type: 'volume', source: 'data', target: '/data', read_only: false, volume: { nocopy: true } },
        { type: 'tmpfs', target: '/tmp', tmpfs: { size: 1000 } },
      ],
      ctx,
      'services.web.volumes',
      problems,
    );
    expect(problems.lines()).toEqual([]);
    expect(out).toEqual([
      { type: 'bind', source: '/srv/app/conf/nginx.conf', target: '/etc/nginx/nginx.conf', read_only: true },
      { type: 'volume', source: 'data', target: '/data', volume: { nocopy: true } },
      { type: 'tmpfs', target: '/tmp', tmpfs: { size: 1000 } },
    ]);
  });

  it('names the field of a bad long-form mount (issue 9: no bare "Invalid input")', () => {
    const problems = new Problems();
    normalizeVolumes([{ type: 'bind', target: '/x' }, { type: 'volume', source: 'v' }], ctx, 'services.web.volumes', problems);
    expect(problems.lines()).toEqual(['services.web.volumes.0.source: a bind mount needs a source path', 'services.web.volumes.1.target: expected the path inside the container']);
  });
});
