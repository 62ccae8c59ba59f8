import { Link } from 'react-router';
import { ArrowRightIcon } from './promo-icons';

interface AccessCtaProps {
  signedIn: boolean;
  className?: string;
}

// Spec 000 §2: a signed-in visitor goes straight into the product; anyone else is invited to register.
export function AccessCta({ signedIn, className = 'btn btn-primary' }: AccessCtaProps) {
  return signedIn ? (
    <Link to="/home" className={`${className} promo-cta`}>
      ACCESS OSINT
      <ArrowRightIcon />
    </Link>
  ) : (
    <Link to="/register" className={`${className} promo-cta`}>
      REQUEST ACCESS
      <ArrowRightIcon />
    </Link>
  );
}
