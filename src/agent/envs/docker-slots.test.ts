import { describe, expect, it } from 'vitest';
import type { ServiceSpec } from '../../contracts/spec.js';
import type { DeployedService, SlotRecord } from '../runtimes/docker/slot-store.js';
import { chooseDeploy } from './docker-slots.js';

const d = (digest: string, version: string | null) => ({ digest, version }) as DeployedService;
const spec = (image: string) => ({ image }) as ServiceSpec;
const record: SlotRecord = { scope: 'env_1', service: 'web', project: 'p', current: d('sha256:b', 'ver_2'), previous: d('sha256:a', 'ver_1') };

describe('chooseDeploy (which verified deploy a version means)', () => {
  it('prefers the deploy recorded for the version, then the pinned digest, then the current one', () => {
    expect(chooseDeploy(record, 'ver_1', spec('r/web'))).toBe(record.previous);
    expect(chooseDeploy(record, 'ver_2', spec('r/web'))).toBe(record.current);
    expect(chooseDeploy(record, 'ver_9', spec('r/web@sha256:a'))).toBe(record.previous);
    expect(chooseDeploy(record, 'ver_9', spec('r/web'))).toBe(record.current);
  });

  it('never picks a digest this host did not verify', () => {
    expect(chooseDeploy(record, 'ver_9', spec('r/web@sha256:c'))).toBeNull();
    expect(chooseDeploy({ ...record, current: null, previous: null }, 'ver_1', spec('r/web'))).toBeNull();
  });
});
