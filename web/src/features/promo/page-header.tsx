import type { ReactNode } from 'react';
import './promo.css';

interface PageHeaderProps {
  eyebrow?: string;
  title: string;
  lead?: ReactNode;
  children?: ReactNode;
}

// The dark band that opens every inner promo page, so About, FAQ, Contact and the legal documents share
// one visual entry point with the home hero.
export function PageHeader({ eyebrow, title, lead, children }: PageHeaderProps) {
  return (
    <header className="promo-page-header">
      <div className="container promo-page-header-inner">
        {eyebrow && <p className="promo-eyebrow promo-eyebrow-on-night">{eyebrow}</p>}
        <h1 className="promo-page-title">{title}</h1>
        {lead && <p className="promo-page-lead">{lead}</p>}
        {children}
      </div>
    </header>
  );
}
