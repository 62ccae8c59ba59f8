import { ANNUAL_DISCOUNT_PERCENT, ANNUAL_MONTHS, computePrice, formatUsd } from '@osint/contract/pricing';
import {
  ACTIVATION_LINK_HOURS,
  ADDITIONAL_USER_PRICE_USD,
  BASE_PRICE_USD,
  INACTIVITY_RETENTION_DAYS,
  MAX_FIXED_PERIOD_MONTHS,
  PHOTO_FORMATS_LABEL,
  PHOTO_MAX_SIZE_LABEL,
  PHOTO_MIN_FACE_LABEL,
  PRODUCT_NAME,
  REFUND_WINDOW_DAYS,
  TRIAL_DAYS,
} from './promo-constants';
import type { RichBlock } from './rich-text';

export interface FaqEntry {
  id: string;
  question: string;
  answer: readonly RichBlock[];
}

export interface FaqGroup {
  id: string;
  title: string;
  entries: readonly FaqEntry[];
}

/** The annual plan for one user, priced by the pricing module. */
const ANNUAL_ONE_USER = computePrice({ kind: 'FIXED', users: 1, months: ANNUAL_MONTHS });

const GENERAL: FaqGroup = {
  id: 'general',
  title: 'General',
  entries: [
    {
      id: 'what-is-osint',
      question: `What is ${PRODUCT_NAME}?`,
      answer: [
        `${PRODUCT_NAME} is a face search engine combined with context analysis. You upload a photo, choose the face you are interested in, and the platform looks for visually similar faces on publicly available websites. Each match links to the page where the image was published.`,
        'On top of the matches, our AI data extractor reads the content around each result and tells you whether the person appears in connection with criminal activity, political office or sanctions lists, and with whom they were seen. Findings can be exported as a PDF report.',
      ],
    },
    {
      id: 'who-can-use',
      question: `Who can use ${PRODUCT_NAME}?`,
      answer: [
        `${PRODUCT_NAME} is business-only and invite-only. We work exclusively with verified organizations:`,
        {
          list: [
            'government agencies, law-enforcement and military bodies;',
            'regulated private companies such as banks, insurers and their compliance teams, and technology companies;',
            'non-profit organizations, research and educational institutions, and professional investigators.',
          ],
        },
        'We do not accept private individuals. Every organization is reviewed by our team before its first login, and we may ask for documents that confirm its identity and its legitimate purpose.',
        'Searching for children and teenagers is reserved to law-enforcement bodies we have verified. Every face is given an automatic age estimate; for other organizations, faces estimated as possibly under 18 cannot be searched and never appear in results. The estimate errs on the side of the child, so it also withholds most adults aged 18 to 24 and some older adults.',
      ],
    },
    {
      id: 'how-to-get-access',
      question: 'How do we get access?',
      answer: [
        'Request access through the registration form with your organization’s name, website and type. The account must be opened with a corporate e-mail address on your organization’s domain; addresses from free e-mail providers are refused.',
        `We then send a confirmation link to that address (it is valid for ${ACTIVATION_LINK_HOURS} hours). Once the address is confirmed, our team reviews the organization manually. You will be able to log in as soon as the review is approved, and we will tell you by e-mail.`,
      ],
    },
    {
      id: 'free-trial',
      question: 'Is there a free trial?',
      answer: [
        `Yes. Every approved organization receives a ${TRIAL_DAYS}-day free trial, and no credit card is required. The trial starts when our team approves your account.`,
        'During the trial one user of the organization has access at a time; the owner can move that access to a colleague whenever needed. Search works as in a paid plan, but the trial hides the source links of results: opening the original image and the page it was published on is reserved for subscribers.',
        'The trial ends by itself on its last day. Nothing is billed unless your owner orders a plan, by card or by bank transfer. We may revoke a trial that is used in breach of our Terms of Service.',
      ],
    },
    {
      id: 'pricing',
      question: 'How much does it cost?',
      answer: [
        `Access is licensed per seat. The price is ${BASE_PRICE_USD} USD per month, which includes the first user, plus ${ADDITIONAL_USER_PRICE_USD} USD per month for each additional user.`,
        `You can choose a monthly subscription that renews every month, or a fixed period of 1 to ${MAX_FIXED_PERIOD_MONTHS} months paid once. For example, an organization with three users pays ${BASE_PRICE_USD + 2 * ADDITIONAL_USER_PRICE_USD} USD per month (${BASE_PRICE_USD} USD for the first user and ${ADDITIONAL_USER_PRICE_USD} USD for each of the other two).`,
        `Annual is ${ANNUAL_DISCOUNT_PERCENT}% cheaper: a fixed period of ${ANNUAL_MONTHS} months costs ${ANNUAL_DISCOUNT_PERCENT}% less, so ${ANNUAL_MONTHS} months for one user cost ${formatUsd(ANNUAL_ONE_USER.total)} USD instead of ${formatUsd(ANNUAL_ONE_USER.subtotal)} USD.`,
      ],
    },
    {
      id: 'payment-methods',
      question: 'How can we pay?',
      answer: [
        'Plans are paid in advance, in one of two ways:',
        {
          list: [
            'by card, through the secure checkout of our payment provider, which acts as merchant of record and issues your receipt;',
            'by bank transfer on a proforma invoice, which you download when you place the order. Transfers usually take 1 to 5 business days to reach us, and the plan activates as soon as we confirm the payment.',
          ],
        },
        `If the service is not right for you, you may ask for a refund within ${REFUND_WINDOW_DAYS} days after your subscription is activated. The free trial is not part of that period.`,
      ],
    },
    {
      id: 'team-seats',
      question: 'Can my whole team use one account?',
      answer: [
        'Each organization has one owner, usually the person who registered it. The owner invites colleagues by their corporate e-mail address from the Account page and decides who has access: every user with access occupies one seat of your plan.',
        'The owner can give access, remove it again or delete users without access at any time, so seats always follow the people who actually work on your cases. Saved searches and AI data extractions belong to the organization: every user of your organization sees them, whoever started them.',
      ],
    },
  ],
};

const TECHNICAL: FaqGroup = {
  id: 'technical',
  title: 'Technical',
  entries: [
    {
      id: 'photo-requirements',
      question: 'What are the requirements for the photo?',
      answer: [
        'For reliable results, the photo you upload should meet these requirements:',
        {
          list: [
            `File format: ${PHOTO_FORMATS_LABEL}.`,
            `File size: at most ${PHOTO_MAX_SIZE_LABEL}.`,
            'The face looks straight at the camera and is centred in the picture.',
            `The face is at least ${PHOTO_MIN_FACE_LABEL} in size.`,
          ],
        },
        'Sharp, well-lit photos without heavy filters, sunglasses or strong shadows give the best matches. If a photo contains several people, you choose which face to search for.',
      ],
    },
    {
      id: 'photo-storage',
      question: 'Do you store the photos we upload?',
      answer: [
        'No. Uploaded photos are analysed in memory to compute the search and are not stored, and we do not build permanent databases of the people you look for.',
        'Only two actions of yours keep a small picture of the face you chose: saving a search keeps it as the cover of the saved search, and watching a face for alerts keeps it with the face’s descriptor until the watch ends.',
        `Your results, saved searches and history are kept for your organization while you work with them, and are deleted automatically after ${INACTIVITY_RETENTION_DAYS} days of inactivity.`,
      ],
    },
    {
      id: 'index-sources',
      question: 'Where do the results come from, and how current are they?',
      answer: [
        'Results come from publicly available websites such as news portals, company pages, public registers and blogs. Social networks are not searched by default; a separate social-media search is available when you need it.',
        'The index is built by our own crawler, which visits public websites, follows their robots.txt rules and keeps adding the images it finds; copies of one photo on several sites are grouped together. Each result shows the date on which it was first indexed, so you can judge how recent a publication is. The platform does not track anyone in real time.',
      ],
    },
    {
      id: 'ai-data-extractor',
      question: 'How does the AI data extractor work?',
      answer: [
        'Select the results you want analysed and start the AI data extractor. It reads the pages around each result and reports the names it finds, whether the person is linked to criminal activity, political office or sanctions lists, and which other people they were seen with. Every finding keeps the evidence it is based on.',
        'The analysis takes a few minutes. You can keep working in the meantime: we notify you by e-mail when it is complete, and the findings appear in the AI Data Extractor section. From there, or from any saved search, you can generate a PDF report.',
      ],
    },
    {
      id: 'deepfakes',
      question: `Can ${PRODUCT_NAME} detect deepfakes or manipulated images?`,
      answer: [
        `No. ${PRODUCT_NAME} finds publicly published images of faces that look similar to yours; it does not directly flag deepfakes or edited photos.`,
        'The first-indexed date of each result, the source page and the same photo appearing on other sites help you assess an image’s origin. As with any open-source finding, results should be verified before you rely on them.',
      ],
    },
  ],
};

export const FAQ_GROUPS: readonly FaqGroup[] = [GENERAL, TECHNICAL];
