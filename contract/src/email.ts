/** The free-mail providers refused for registration, contact and invitations (ARCHITECTURE.md §5). */
export const BLOCKED_EMAIL_DOMAINS = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'aol.com',
  'icloud.com',
  'mail.ru',
  'yandex.ru',
  'gmx.com',
] as const;

// Deliberately simple: one @, a dot in the domain, no spaces. Deliverability is proven by the e-mail link.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const MAX_EMAIL_LENGTH = 254;

export function isEmailFormatValid(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(email);
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * The domain as DNS resolves it: `gmail.com.` (the fully-qualified form with its trailing dot), `GMAIL.com`
 * and `ｇｍａｉｌ.com` (full-width letters, mapped by IDNA) all reach gmail.com, and internationalised names
 * become their punycode form. URL parsing does the IDNA mapping the same way in Node and in browsers.
 */
export function canonicalDomain(domain: string): string {
  const trimmed = domain.trim().replace(/\.+$/, '');
  try {
    return new URL(`http://${trimmed}/`).hostname.replace(/\.+$/, '');
  } catch {
    return trimmed.toLowerCase();
  }
}

/** The blocked provider an address belongs to (subdomains included), or undefined. */
export function blockedEmailDomain(email: string): string | undefined {
  const domain = canonicalDomain(emailDomain(email));
  const blocked = BLOCKED_EMAIL_DOMAINS.find((d) => domain === d || domain.endsWith(`.${d}`));
  return blocked ? domain : undefined;
}

export function blockedDomainMessage(domain: string): string {
  return `We don't support emails from '${domain}'. Please use a different email provider.`;
}
