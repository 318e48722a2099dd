import { describe, expect, it } from 'vitest';
import { parseReward, rewardOf } from './verify.js';

describe('reward protocol', () => {
  it.each([
    ['0.75', 0.75],
    [' 1 \n', 1],
    ['-2e-3', -0.002],
    ['{"reward": 0.5, "why": "half"}', 0.5],
    ['{"reward": "1"}', null],
    ['NaN', null],
    ['1e999', null],
    ['[1]', null],
    ['score: 1', null],
    ['', null],
  ])('parses %j as %j', (text, reward) => {
    expect(parseReward(text)).toBe(reward);
  });

  it('takes the last non-empty stdout line', () => {
    expect(rewardOf('checking…\nall good\n0.9\n\n', null)).toEqual({ reward: 0.9, source: 'stdout' });
    expect(rewardOf('0.9\nnot a number\n', null)).toEqual({ reward: null, source: null });
    expect(rewardOf('', null)).toEqual({ reward: null, source: null });
  });

  it('makes a written reward file authoritative, even when it holds no reward', () => {
    expect(rewardOf('0.1\n', '{"reward": 1}')).toEqual({ reward: 1, source: 'file' });
    expect(rewardOf('0.1\n', 'oops')).toEqual({ reward: null, source: 'file' });
  });
});
