import { describe, expect, it } from 'vitest';
import { maskUrlSecrets } from '../../src/lib/url-secrets.ts';

// What the request log keeps of a URL: never a working one-time link (logs.test.ts checks the real
// server's log for the same).

const SECRET = 'f00dfeedf00dfeedf00dfeedf00dfeed';

describe('logs: token-bearing paths and queries are masked', () => {
  it('item 13: every spelling of a token-bearing path or query parameter is masked', () => {
    const cases: [string, string][] = [
      [`/verify-email/${SECRET}`, '/verify-email/[redacted]'],
      [`/verify-email/${SECRET}/`, '/verify-email/[redacted]'],
      [`/%76erify-email/${SECRET}`, '/verify-email/[redacted]'],
      [`/Verify-Email/${SECRET}?utm=mail`, '/verify-email/[redacted]?utm=mail'],
      [`/api/user/validate/${SECRET}`, '/api/user/validate/[redacted]'],
      [`/api/user/%76alidate/${SECRET}`, '/api/user/validate/[redacted]'],
      [`/reset-password?token=${SECRET}`, '/reset-password?token=[redacted]'],
      [`/set-password?lang=en&TOKEN=${SECRET}`, '/set-password?lang=en&TOKEN=[redacted]'],
      [`/reset-password?%74oken=${SECRET}`, '/reset-password?%74oken=[redacted]'],
      [`/api/metrics?access_token=${SECRET}`, '/api/metrics?access_token=[redacted]'],
      [`/x?verificationHash=${SECRET}&key=${SECRET}`, '/x?verificationHash=[redacted]&key=[redacted]'],
    ];
    for (const [url, logged] of cases) {
      expect(maskUrlSecrets(url), url).toBe(logged);
      expect(maskUrlSecrets(url)).not.toContain(SECRET);
    }
  });

  it('item 13: URLs without secrets are logged as they came', () => {
    for (const url of [
      '/api/saved-search?pageNumber=2&pageSize=5',
      '/search/abc',
      '/api/health',
      '/%zz?a=%zz',
    ])
      expect(maskUrlSecrets(url)).toBe(url);
  });
});
