/** Password rules of spec 000 §5, shared by the live checklist and the server. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;
export const PASSWORD_SYMBOLS = ',.;!@#$%^&*';

export interface PasswordRule {
  id: 'length' | 'capital' | 'number' | 'symbol';
  label: string;
  test: (password: string) => boolean;
}

export const PASSWORD_RULES: readonly PasswordRule[] = [
  {
    id: 'length',
    label: 'The password must be at least 8 characters long',
    test: (p) => p.length >= PASSWORD_MIN_LENGTH,
  },
  { id: 'capital', label: 'Use at least one capital letter', test: (p) => /[A-Z]/.test(p) },
  { id: 'number', label: 'Use at least one number', test: (p) => /[0-9]/.test(p) },
  {
    id: 'symbol',
    label: 'Use at least one symbol (,.;!@#$%^&*)',
    test: (p) => [...p].some((c) => PASSWORD_SYMBOLS.includes(c)),
  },
];

export function isPasswordValid(password: string): boolean {
  return password.length <= PASSWORD_MAX_LENGTH && PASSWORD_RULES.every((rule) => rule.test(password));
}

/** The first unmet rule, as a sentence for an API error. */
export function passwordProblem(password: string): string | undefined {
  if (password.length > PASSWORD_MAX_LENGTH)
    return `The password must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  return PASSWORD_RULES.find((rule) => !rule.test(password))?.label;
}
