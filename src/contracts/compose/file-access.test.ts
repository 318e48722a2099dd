/** confinedFileAccess keeps a checkout's Compose file from reading files outside it. */
import { describe, expect, it } from 'vitest';
import { confinedFileAccess, type FileAccess } from './file-access.js';

const everything: FileAccess = { readText: async (p) => `text of ${p}`, exists: async () => true };

describe('confinedFileAccess', () => {
  const files = confinedFileAccess('/srv/checkout', everything);

  it('reaches paths inside the root', async () => {
    expect(await files.exists('/srv/checkout/.env')).toBe(true);
    expect(await files.readText('/srv/checkout/sub/../web.env')).toBe('text of /srv/checkout/sub/../web.env');
  });

  it.each(['/etc/passwd', '/srv/checkout/../secret.env', '/srv/checkout-other/x'])('refuses %s', async (p) => {
    expect(await files.exists(p)).toBe(false);
    await expect(files.readText(p)).rejects.toThrow(/outside \/srv\/checkout/);
  });
});
