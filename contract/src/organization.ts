/** Organization types of spec 000 §3, value → label, in the order the form shows them. */
export const ORGANIZATION_TYPES = {
  police: 'Police',
  nonProfit: 'Non Profit',
  government: 'Government Agency',
  private: 'Private Company',
  educational: 'Educational Institution',
  healthcare: 'Healthcare Provider',
  military: 'Military',
  research: 'Research Organization',
  tech: 'Technology Company',
} as const;

export type OrganizationType = keyof typeof ORGANIZATION_TYPES;

export const ORGANIZATION_TYPE_VALUES = Object.keys(ORGANIZATION_TYPES) as OrganizationType[];

export function isOrganizationType(value: string): value is OrganizationType {
  return Object.hasOwn(ORGANIZATION_TYPES, value);
}

export const MAX_ORGANIZATION_NAME_LENGTH = 200;
export const MAX_URL_LENGTH = 2048;

export function isUrlFormatValid(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || /\s/.test(value)) return false;
  // People type "example.org"; accept it as https://example.org.
  const candidate = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
  try {
    const url = new URL(candidate);
    return (url.protocol === 'http:' || url.protocol === 'https:') && /\.[a-z]{2,}$/i.test(url.hostname);
  } catch {
    return false;
  }
}
