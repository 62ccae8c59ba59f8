// Names, figures and addresses that the promo copy and the legal documents repeat. They live here so that a
// rename or a price change is one edit, and so that the FAQ and the Terms can never disagree.

export const COMPANY_NAME = 'OSINT Platform Ltd.';
export const PRODUCT_NAME = 'OSINT';
export const COMPANY_SEAT = 'Tel Aviv, Israel';

// Placeholder addresses on the reserved .example domain until the operator configures real mailboxes.
export const PRIVACY_EMAIL = 'privacy@osint-platform.example';
export const LEGAL_EMAIL = 'legal@osint-platform.example';

// The provider's public face-search engine for individuals, promoted on the home page.
export const PUBLIC_SEARCH_ENGINE_URL = 'https://search.example.com';

// Spec 000 §9: the version date of the Terms of Service and the Privacy Policy.
export const LEGAL_VERSION_DATE = 'January 22nd, 2024';
export const LEGAL_VERSION_ISO = '2024-01-22';

// Spec 000 §9 and 001 §9. Architecture §5: an additional user costs 50 USD, never 100, in every text.
export const TRIAL_DAYS = 7;
// Prices and limits come from the one pricing module the pricing page, the server and invoices use.
export {
  ADDITIONAL_USER_PRICE_USD,
  BASE_PRICE_USD,
  MAX_MONTHS as MAX_FIXED_PERIOD_MONTHS,
  REFUND_DAYS as REFUND_WINDOW_DAYS,
} from '@osint/contract/pricing';
export const INACTIVITY_RETENTION_DAYS = 30;
export const LOG_RETENTION_DAYS = 90;
export const RECORD_RETENTION_YEARS = 7;
export const ACTIVATION_LINK_HOURS = 24;

export const PHOTO_MAX_SIZE_LABEL = '1.5 MB';
export const PHOTO_MIN_FACE_LABEL = '128x128 pixels';
export const PHOTO_FORMATS_LABEL = 'JPG, PNG, BMP or TIFF';
