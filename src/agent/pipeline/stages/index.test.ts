import { describe, expect, it } from 'vitest';
import { DEPLOY_STAGE_NAMES, PREFLIGHT_STAGE_NAMES } from '../../../contracts/envelope.js';
import { PROCESS_STAGES } from '../../envs/process-pipeline/stages/index.js';
import { DEPLOY_STAGES, PREFLIGHT_STAGES } from './index.js';

describe('stage registry', () => {
  it("lists seed 004's stages in order, with its gates", () => {
    expect(DEPLOY_STAGES.map((s) => s.name)).toEqual([...DEPLOY_STAGE_NAMES]);
    expect(PREFLIGHT_STAGES.map((s) => s.name)).toEqual([...PREFLIGHT_STAGE_NAMES]);
    const mode = Object.fromEntries(DEPLOY_STAGES.map((s) => [s.name, s.onFailure]));
    // verify and pull are hard gates; health rolls back; the edge is best effort.
    expect(mode).toMatchObject({ admit: 'fail', verify: 'fail', pull: 'fail', health: 'rollback', proxy: 'degrade', dns: 'degrade' });
    expect(DEPLOY_STAGES.findIndex((s) => s.name === 'health')).toBeLessThan(DEPLOY_STAGES.findIndex((s) => s.name === 'proxy'));
    expect(PREFLIGHT_STAGES.every((s) => s.onFailure === 'fail')).toBe(true);
  });

  it('gives a process service the same stages, in the same order, with the same failure modes', () => {
    expect(PROCESS_STAGES.map((s) => [s.name, s.onFailure])).toEqual(DEPLOY_STAGES.map((s) => [s.name, s.onFailure]));
  });
});
