import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe: session ids, e-mail link tokens. */
export function newSecureToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens are stored only as this hash, so a leaked table cannot be replayed. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A short opaque public id (96 bits) for rows whose numeric id must not be guessable. */
export function newPublicId(): string {
  return randomBytes(12).toString('base64url');
}
