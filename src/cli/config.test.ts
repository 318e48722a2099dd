import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { baseUrl, parseHttpUrl, parsePort, parsePositiveInt } from './config.js';

describe('option parsers', () => {
  it('accepts ports 0-65535 only', () => {
    expect(parsePort('4600')).toBe(4600);
    expect(parsePort('0')).toBe(0);
    expect(() => parsePort('65536')).toThrow(InvalidArgumentError);
    expect(() => parsePort('46a')).toThrow(InvalidArgumentError);
    expect(() => parsePort('')).toThrow(InvalidArgumentError);
  });

  it('accepts positive integers only', () => {
    expect(parsePositiveInt('5')).toBe(5);
    expect(() => parsePositiveInt('0')).toThrow(InvalidArgumentError);
    expect(() => parsePositiveInt('-1')).toThrow(InvalidArgumentError);
  });

  it('accepts http(s) URLs and drops trailing slashes', () => {
    expect(parseHttpUrl('http://127.0.0.1:4600/')).toBe('http://127.0.0.1:4600');
    expect(parseHttpUrl('https://cp.example')).toBe('https://cp.example');
    expect(() => parseHttpUrl('foo')).toThrow(/expected a URL/);
    expect(() => parseHttpUrl('ftp://x')).toThrow(/http/);
  });

  it('defaults the URL to loopback on the port', () => {
    expect(baseUrl({ port: 4700 })).toBe('http://127.0.0.1:4700');
    expect(baseUrl({ url: 'https://cp.example/', port: 4600 })).toBe('https://cp.example');
  });
});
