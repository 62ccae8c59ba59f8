import { PageHeader } from './page-header';
import { GlobeIcon, MailIcon, MapPinIcon } from './promo-icons';
import { COMPANY_NAME, COMPANY_SEAT } from './promo-constants';
import './promo.css';

// Top of /contact. The app places the contact form and <FaqList showTitle /> below it, inside a .container.
export function ContactHeading() {
  return (
    <PageHeader
      eyebrow="Support and sales"
      title="CONTACT US"
      lead="Questions about access, billing or an investigation in progress? Send us a message and our team will reply to the e-mail address you provide."
    >
      <ul className="promo-contact-facts">
        <li>
          <MailIcon />
          <span>
            <strong>Replies by e-mail</strong>
            All follow-up is sent to the address in your message.
          </span>
        </li>
        <li>
          <GlobeIcon />
          <span>
            <strong>Two support hubs</strong>
            Our team works from Israel and Georgia.
          </span>
        </li>
        <li>
          <MapPinIcon />
          <span>
            <strong>{COMPANY_NAME}</strong>
            {COMPANY_SEAT}
          </span>
        </li>
      </ul>
    </PageHeader>
  );
}
