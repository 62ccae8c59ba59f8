import crypto from 'node:crypto';

/**
 * The FastSpring settings of the product under test: a local stand-in (started by the billing spec on a
 * fixed port) serves the Store Builder script; the store key pair and the webhook secret are made once per
 * run and reach the workers through the environment, like E2E_DATA_DIR.
 */
/** The credentials of FastSpring's server API that the product uses and the stand-in expects. */
export const E2E_FS_API = { username: 'e2e-api-user', password: 'e2e-api-password' };

export function fastspringEnv(): Record<string, string> {
  if (!process.env.E2E_FS_PRIVATE_KEY || !process.env.E2E_FS_PUBLIC_KEY) {
    const keys = crypto.generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    process.env.E2E_FS_PRIVATE_KEY = keys.privateKey;
    process.env.E2E_FS_PUBLIC_KEY = keys.publicKey;
  }
  process.env.E2E_FS_SECRET ??= `e2e-${crypto.randomBytes(16).toString('hex')}`;
  process.env.E2E_FS_PORT ??= String(Number(process.env.E2E_PORT ?? 3310) + 51);
  return {
    FASTSPRING_STOREFRONT: 'osint-e2e.test.onfastspring.com/popup-osint-e2e',
    FASTSPRING_ACCESS_KEY: 'E2EACCESSKEY',
    FASTSPRING_SCRIPT_URL: `http://127.0.0.1:${process.env.E2E_FS_PORT}/sbl/fastspring-builder.js`,
    FASTSPRING_WEBHOOK_SECRET: process.env.E2E_FS_SECRET,
    FASTSPRING_PRIVATE_KEY: process.env.E2E_FS_PRIVATE_KEY,
    // The stand-in's events are test-mode events ("live": false), as a test storefront's are.
    FASTSPRING_ACCEPT_TEST_EVENTS: '1',
    // Ending a plan cancels its card subscription through the stand-in's server API.
    FASTSPRING_API_URL: `http://127.0.0.1:${process.env.E2E_FS_PORT}`,
    FASTSPRING_API_USERNAME: E2E_FS_API.username,
    FASTSPRING_API_PASSWORD: E2E_FS_API.password,
  };
}
