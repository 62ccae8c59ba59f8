import { LegalDocument } from './legal-document';
import { PRIVACY_POLICY } from './privacy-policy-content';

// Mounted at /privacy-policy (promo layout) and /home/privacy-policy (user layout).
export function PrivacyPolicyPage() {
  return <LegalDocument document={PRIVACY_POLICY} />;
}
