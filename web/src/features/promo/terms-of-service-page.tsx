import { LegalDocument } from './legal-document';
import { TERMS_OF_SERVICE } from './terms-of-service-content';

// Mounted at /terms-of-service (promo layout) and /home/terms-of-service (user layout).
export function TermsOfServicePage() {
  return <LegalDocument document={TERMS_OF_SERVICE} />;
}
