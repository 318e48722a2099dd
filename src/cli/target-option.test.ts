import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseTarget } from './target-option.js';

describe('--target', () => {
  it('maps host=<id or name> and cloud=<name> to the API target', () => {
    expect(parseTarget('host=host_0123abcd')).toEqual({ host: 'host_0123abcd' });
    expect(parseTarget('host=web-1')).toEqual({ host: 'web-1' });
    expect(parseTarget('cloud=hetzner-fsn')).toEqual({ cloud: 'hetzner-fsn' });
    expect(parseTarget(' cloud=local ')).toEqual({ cloud: 'local' });
    expect(parseTarget('aws_account=prod')).toEqual({ aws_account: 'prod' });
  });

  it('refuses anything else, naming the allowed forms', () => {
    for (const bad of ['host', 'host=', 'cloud=', 'web-1', 'region=eu', 'host:web-1', 'HOST=web-1', 'host=a b', `host=${'x'.repeat(101)}`]) {
      expect(() => parseTarget(bad), bad).toThrow(InvalidArgumentError);
      expect(() => parseTarget(bad), bad).toThrow('expected host=<host id or name>, cloud=<cloud name> or aws_account=<account name>');
    }
  });
});
