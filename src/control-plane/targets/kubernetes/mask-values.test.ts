import { describe, expect, it } from 'vitest';
import type { Spec } from '../../../contracts/spec.js';
import { maskValues } from './plan-cluster-env.js';

describe("the LLM plan's summary", () => {
  it('shows environment values of the spec as ***, longest first, short values left alone', () => {
    const spec = { services: { web: { environment: { DATABASE_URL: 'postgres://app:pw@db/app', PW: 'pw', MODE: 'prod' } } } } as unknown as Spec;
    expect(maskValues('connects to postgres://app:pw@db/app in prod mode (pw)', spec)).toBe('connects to *** in *** mode (pw)');
  });
});
