import crypto from 'node:crypto';

/**
 * FastSpring's Store Builder "secure payload": the session JSON encrypted with AES-128-ECB (PKCS#5
 * padding) under a fresh random 16-byte key, and that key encrypted with the store's RSA private key
 * (PKCS#1 v1.5 padding). FastSpring decrypts the key with the public key it holds, then the payload.
 */
export function encryptSecurePayload(
  session: unknown,
  privateKeyPem: string,
): { payload: string; key: string } {
  const aesKey = crypto.randomBytes(16);
  const cipher = crypto.createCipheriv('aes-128-ecb', aesKey, null);
  const payload = Buffer.concat([cipher.update(JSON.stringify(session), 'utf8'), cipher.final()]);
  const key = crypto.privateEncrypt(
    { key: privateKeyPem, padding: crypto.constants.RSA_PKCS1_PADDING },
    aesKey,
  );
  return { payload: payload.toString('base64'), key: key.toString('base64') };
}

/** What FastSpring does with a secure payload: the key with the public key, then the session. */
export function decryptSecurePayload(payload: string, key: string, publicKeyPem: string): unknown {
  const aesKey = crypto.publicDecrypt(
    { key: publicKeyPem, padding: crypto.constants.RSA_PKCS1_PADDING },
    Buffer.from(key, 'base64'),
  );
  const decipher = crypto.createDecipheriv('aes-128-ecb', aesKey, null);
  const json = Buffer.concat([decipher.update(Buffer.from(payload, 'base64')), decipher.final()]);
  return JSON.parse(json.toString('utf8'));
}

/** X-FS-Signature: base64 of the HMAC-SHA256 of the raw request body, keyed with the webhook secret. */
export function webhookSignature(rawBody: Buffer | string, secret: string): string {
  return crypto.createHmac('sha256', secret).update(rawBody).digest('base64');
}

/** Constant-time comparison of the header with the expected signature; false for any malformed header. */
export function isWebhookSignatureValid(
  rawBody: Buffer,
  signature: string | undefined,
  secret: string | undefined,
): boolean {
  if (!secret || !signature) return false;
  const expected = Buffer.from(webhookSignature(rawBody, secret), 'utf8');
  const given = Buffer.from(signature.trim(), 'utf8');
  // timingSafeEqual needs equal lengths; the length of a SHA-256 signature is public anyway.
  if (given.length !== expected.length) return false;
  return crypto.timingSafeEqual(given, expected);
}
