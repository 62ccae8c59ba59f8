import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

// FastSpring's server API cancels the card subscription of a plan an admin ends: on only with both
// credentials, and never with credentials inside the address (error messages quote the address).

describe('FASTSPRING_API_*', () => {
  const credentials = { FASTSPRING_API_USERNAME: 'store-api', FASTSPRING_API_PASSWORD: 'secret' };

  it('is off without both credentials, and on FastSpring itself by default', () => {
    expect(loadConfig({}).billing.fastspring.api).toBeUndefined();
    expect(loadConfig({ FASTSPRING_API_USERNAME: 'store-api' }).billing.fastspring.api).toBeUndefined();
    expect(loadConfig(credentials).billing.fastspring.api).toEqual({
      url: 'https://api.fastspring.com',
      username: 'store-api',
      password: 'secret',
    });
  });

  it('refuses an address with credentials in it, or one that is not http(s)', () => {
    for (const url of ['https://store-api:secret@api.fastspring.com', 'ftp://api.fastspring.com']) {
      expect(() => loadConfig({ ...credentials, FASTSPRING_API_URL: url }), url).toThrow(
        /FASTSPRING_API_URL must be an http\(s\) address without credentials/,
      );
    }
    expect(
      loadConfig({ ...credentials, FASTSPRING_API_URL: 'http://127.0.0.1:9000' }).billing.fastspring.api?.url,
    ).toBe('http://127.0.0.1:9000');
  });
});
