import type { LegalDocumentContent } from './legal-document';
import {
  ACTIVATION_LINK_HOURS,
  ADDITIONAL_USER_PRICE_USD,
  BASE_PRICE_USD,
  COMPANY_NAME,
  INACTIVITY_RETENTION_DAYS,
  LEGAL_EMAIL,
  MAX_FIXED_PERIOD_MONTHS,
  PRODUCT_NAME,
  REFUND_WINDOW_DAYS,
  TRIAL_DAYS,
} from './promo-constants';

export const TERMS_OF_SERVICE: LegalDocumentContent = {
  title: 'Terms of Service',
  summary: `The agreement between ${COMPANY_NAME} and the organizations that use the ${PRODUCT_NAME} platform: who may use it, what we provide, how it is paid for and the rules every user must follow.`,
  intro: [
    `These Terms of Service (the “Terms”) govern access to and use of the ${PRODUCT_NAME} platform, its website and every service we provide through them (together, the “Services”). The Services are offered to organizations only. Please read these Terms carefully before you register: by accepting them you enter into a binding agreement on behalf of your organization.`,
    'Annex I applies in addition to these Terms when the customer is a governmental or law-enforcement entity, and Annex II applies when it is a private-sector entity.',
  ],
  sections: [
    {
      id: 'terms-agreement',
      label: '1.',
      heading: 'Agreement',
      content: [
        `These Terms are concluded between ${COMPANY_NAME}, a limited liability company incorporated under the laws of the State of Israel with its registered office in Tel Aviv (the “Provider”, “we” or “us”), and the legal entity or public body that registers an account (the “Customer”).`,
        'The person who accepts these Terms during registration confirms that they are authorised to bind the Customer. The Customer accepts these Terms when that person ticks the acceptance box, or, at the latest, when any of its users first uses the Services.',
        'The agreement between the parties consists of these Terms, the annex that applies to the Customer, the Privacy Policy and every order, invoice or plan confirmation issued under them (together, the “Agreement”). If a separate agreement signed by both parties covers the same subject, it prevails over these Terms to the extent of any conflict.',
      ],
    },
    {
      id: 'terms-parties-and-roles',
      label: '2.',
      heading: 'Parties and roles',
      content: [
        'For the purposes of the Agreement:',
        {
          list: [
            'the Provider develops and operates the platform and provides the Services;',
            'the Customer is the organization that holds the account; the account, the plan and all data created in it belong to the Customer, not to an individual employee;',
            'the Owner is the user who registered the Customer, or the user the Customer later designates in writing; the Owner manages seats, invitations, plans and payments;',
            'Authorised Users are the Customer’s employees and contractors invited by the Owner with an e-mail address on the Customer’s domain.',
          ],
        },
        'The Customer is responsible for all acts and omissions of its Authorised Users as if they were its own, and for removing the access of any person who leaves the organization or no longer needs it.',
        'With regard to personal data processed through the Services, the Customer is the data controller and the Provider is the data processor acting on the Customer’s behalf, as set out in section 5 and in the Privacy Policy.',
      ],
    },
    {
      id: 'terms-services',
      label: '3.',
      heading: 'Services',
      content: [
        'Subject to the Agreement, the Provider makes the following Services available to the Customer:',
        {
          list: [
            'face search: an Authorised User uploads a photo, selects a detected face and receives visually similar faces found on publicly available websites, each with its source page and the date on which it was first indexed; social networks are searched only when the user chooses the separate social-media search;',
            'the AI data extractor: an automated analysis of the content surrounding selected results that reports names, possible links to criminal activity, political exposure or sanctions lists, and other persons seen together with the subject, together with the evidence for each finding;',
            'face alerts: an Authorised User may watch a face for a limited period and is told when a newly indexed image shows a similar face;',
            'saved searches and analyses shared within the Customer’s organization, PDF reports of searches and analyses, and team accounts with seat management.',
          ],
        },
        'Results are indications drawn from public sources and automated analysis. They may be incomplete, outdated or wrong, and a visual similarity is never proof of identity. The Customer must verify every result independently before relying on it, and in particular before taking any decision that produces legal or similarly significant effects for a person.',
        'The Services do not track individuals in real time, do not store the photos uploaded for a search and do not detect manipulated or synthetic images (“deepfakes”).',
        'The Provider continuously develops the Services and may change, add or remove features. It will not materially reduce the core functionality of the Services during a period the Customer has already paid for.',
      ],
    },
    {
      id: 'terms-access-and-verification',
      label: '4.',
      heading: 'Access restrictions and verification',
      content: [
        `${PRODUCT_NAME} is business-only and invite-only. The Services are available exclusively to legal entities and public bodies that pass the Provider’s verification; they are not available to private individuals acting on their own behalf.`,
        `An account must be registered with a corporate e-mail address on the Customer’s own domain. Addresses from free e-mail providers are refused. The confirmation link sent during registration is valid for ${ACTIVATION_LINK_HOURS} hours.`,
        'The Provider verifies every registration manually before the first login. It may ask for documents such as an extract from a company register, a licence, a letter of authority or a description of the intended use, and it may refuse a registration without giving reasons. Searches concerning persons under 18 years of age are available only to law-enforcement Customers that have passed enhanced verification. To enforce this, every face is given an automatic age estimate; faces estimated as possibly under 18 cannot be searched by, and are not shown to, other Customers, and because the estimate errs on the side of the child it also withholds some adults.',
        `Each approved Customer receives a free trial of ${TRIAL_DAYS} days starting on approval. No payment card is required. During the trial one Authorised User may have access at a time, and viewing the original source of results is reserved for paying Customers. The trial ends by itself on its last day; nothing is charged unless the Customer orders a plan. The Provider may revoke a trial that is misused.`,
        'Login credentials are personal and must not be shared. The Customer must inform the Provider without delay of any suspected unauthorised use of an account. The Provider may suspend access when verification information turns out to be inaccurate or out of date, or when it reasonably suspects a breach of these Terms, and will inform the Owner of the reason unless the law forbids it.',
      ],
    },
    {
      id: 'terms-data-processing',
      label: '5.',
      heading: 'Data processing',
      content: [
        'The Customer determines the purposes and means of every search and analysis it runs. It warrants that it has a valid legal basis under the data-protection laws that apply to it, including, where relevant, the Israeli Protection of Privacy Law, 5741-1981 and the EU General Data Protection Regulation, and that its use of the Services is necessary and proportionate to a legitimate purpose.',
        'As processor, the Provider:',
        {
          list: [
            'processes personal data only on the Customer’s documented instructions, which consist of the Agreement and the Customer’s use of the features of the Services;',
            'ensures that its staff and subprocessors are bound by confidentiality and give access to data only on a need-to-know basis;',
            'implements the security measures described in the Privacy Policy;',
            'assists the Customer in answering requests from data subjects and in meeting its obligations on security, breach notification and impact assessments;',
            'notifies the Customer without undue delay after becoming aware of a personal-data breach affecting its data.',
          ],
        },
        `Uploaded photos are processed in memory to compute the search and are not stored; a small picture of the chosen face is kept only when an Authorised User saves the search or watches the face for alerts. Results, saved searches and search history are deleted automatically after ${INACTIVITY_RETENTION_DAYS} days of inactivity of the Customer’s account. The Privacy Policy describes all retention periods and the subprocessors the Provider uses; the Provider will give notice of a new subprocessor, and the Customer may object on reasonable grounds.`,
        'The Provider also processes the contact and billing details of the Customer and its Authorised Users in order to administer the account, invoice the Services and keep them secure, as described in the Privacy Policy.',
      ],
    },
    {
      id: 'terms-payments',
      label: '6.',
      heading: 'Payments',
      content: [
        `Access is licensed per seat. Each plan costs ${BASE_PRICE_USD} USD per month including the first Authorised User with access, plus ${ADDITIONAL_USER_PRICE_USD} USD per month for every additional Authorised User with access. The Customer chooses either a monthly subscription, which renews every month until it is cancelled, or a fixed period of 1 to ${MAX_FIXED_PERIOD_MONTHS} months. The prices shown on the Pricing page when an order is placed apply to that order.`,
        'All fees are payable in advance, for each month of a subscription or for the whole of a fixed period, by one of the following methods:',
        {
          list: [
            'card payment through the Provider’s payment provider, which acts as merchant of record: it sells the licence to the Customer, processes the payment, calculates any applicable sales taxes and issues the receipt. The Provider never receives full card details;',
            'bank transfer on invoice: when the Customer orders a fixed period, the Provider issues a proforma invoice, which must be paid in full, with the transfer title stated on it and net of any bank charges. The plan is activated once the payment is received, which usually takes 1 to 5 business days.',
          ],
        },
        'A subscription can be cancelled at any time; the cancellation takes effect at the end of the month already paid. If a payment fails or remains outstanding, the Provider may suspend access after notifying the Owner, until the amount due is paid.',
      ],
    },
    {
      id: 'terms-refunds',
      label: '7.',
      heading: 'Refunds',
      content: [
        `The Customer may request a full refund within ${REFUND_WINDOW_DAYS} days after its subscription or fixed-period plan is activated, by writing to the Provider through the contact form or at ${LEGAL_EMAIL}. The free trial is excluded: it is not charged, and its days do not count towards the ${REFUND_WINDOW_DAYS}-day period.`,
        'Refunds are made to the original payment method: card payments through the payment provider, and bank transfers to the account from which the payment was made. Access ends when the refund is issued.',
        `After the ${REFUND_WINDOW_DAYS}-day period fees are not refundable, except where the law requires otherwise or where the Provider ends the Agreement without cause, in which case it refunds the prepaid fees for the unused part of the period. No refund is due when access is suspended or terminated because of a breach of these Terms.`,
      ],
    },
    {
      id: 'terms-use-restrictions',
      label: '8.',
      heading: 'Use restrictions',
      content: [
        'The Customer may use the Services only for lawful purposes that fall within its legitimate professional activity, such as criminal investigations, fraud prevention, anti-money-laundering and sanctions compliance, due diligence and the protection of its staff and customers. Neither the Customer nor its Authorised Users may:',
        {
          list: [
            'use the Services to stalk, harass, intimidate or locate a person, or for any personal or private purpose;',
            'infer or act on a person’s ethnic origin, religion, political opinions, health, sexual orientation or any other protected characteristic, or use results to discriminate;',
            'base a decision with legal or similarly significant effects on a person solely on results of the Services without human review;',
            'search for persons under 18 years of age, unless the Customer is a verified law-enforcement body acting under Annex I;',
            'upload images that were obtained unlawfully or that the Customer has no right to use;',
            'resell, sublicense or otherwise give third parties access to the Services, or use them to build a competing product or database;',
            'copy the index in bulk, access the Services by automated means other than the features provided, reverse-engineer the platform or circumvent its access restrictions and security measures;',
            'share login credentials or let one seat be used by several people.',
          ],
        },
        'To prevent abuse, the Provider monitors usage metadata, such as the number and timing of searches, and may ask the Customer to explain the purpose of specific searches. The Provider may suspend an Authorised User or the whole account with immediate effect when it reasonably believes that these restrictions have been breached.',
      ],
    },
    {
      id: 'terms-availability',
      label: '9.',
      heading: 'Availability',
      content: [
        'The Provider makes commercially reasonable efforts to keep the Services available around the clock and announces planned maintenance in advance whenever possible. Unless agreed otherwise in writing, no specific service level is guaranteed.',
        'The index depends on publicly available websites, which may change or remove their content at any time. The Provider does not guarantee that a given person or image will be found, or that a source page will remain available.',
        'Support is provided through the contact form and by e-mail.',
      ],
    },
    {
      id: 'terms-intellectual-property',
      label: '10.',
      heading: 'Intellectual property',
      content: [
        'The platform, its software, index, models, documentation, design and trade marks belong to the Provider or its licensors. For the duration of the Agreement the Provider grants the Customer a non-exclusive, non-transferable and non-sublicensable right for its Authorised Users to use the Services for the Customer’s internal purposes, in accordance with these Terms.',
        'Images and pages found through the Services remain the property of their owners; the Provider grants no rights in them. The Customer is responsible for obtaining any permission it needs before reproducing third-party content outside the Services.',
        'The Customer may use reports generated through the Services for its internal purposes and share them with authorities, courts and its professional advisers in the course of its activities. The Provider may freely use suggestions and feedback about the Services.',
      ],
    },
    {
      id: 'terms-indemnification',
      label: '11.',
      heading: 'Indemnification',
      content: [
        'The Customer will defend and indemnify the Provider against claims by third parties, including data subjects and authorities, and against the resulting damages, fines and reasonable legal costs, to the extent that they arise from the Customer’s or its Authorised Users’ use of the Services in breach of the Agreement or of applicable law, or from content the Customer uploaded.',
        'The Provider will defend and indemnify the Customer against claims by third parties that the platform software, used in accordance with the Agreement, infringes their intellectual-property rights. This does not cover third-party content found through the Services.',
        'The indemnified party must notify the other party promptly of the claim, let it control the defence and any settlement, and cooperate reasonably at its expense.',
      ],
    },
    {
      id: 'terms-liability',
      label: '12.',
      heading: 'Limitation of liability',
      content: [
        'The Services are provided “as is”. The Provider does not warrant that results are accurate, complete or fit for a particular purpose, and decisions taken on the basis of results are the sole responsibility of the Customer.',
        'Neither party is liable for indirect or consequential damage, loss of profit, revenue, data or reputation. Each party’s total liability under the Agreement is limited to the fees paid by the Customer in the twelve months before the event giving rise to the liability.',
        'These limitations do not apply to damage caused by wilful misconduct or gross negligence, to the Customer’s payment and indemnification obligations, or where the law does not permit liability to be limited.',
      ],
    },
    {
      id: 'terms-modifications',
      label: '13.',
      heading: 'Modifications',
      content: [
        'The Provider may amend these Terms. It will inform the Owner of material changes by e-mail and in the platform at least 30 days before they take effect; changes required by law may take effect sooner. The version date at the top of this page shows when the Terms were last changed.',
        'If the Customer does not agree with a change, it may terminate the Agreement before the change takes effect and receive a refund of prepaid fees for the unused part of its period. Continued use of the Services after that date constitutes acceptance of the amended Terms.',
      ],
    },
    {
      id: 'terms-governing-law',
      label: '14.',
      heading: 'Governing law and jurisdiction',
      content: [
        'The Agreement is governed by the laws of the State of Israel, without regard to their conflict-of-laws rules. The United Nations Convention on Contracts for the International Sale of Goods does not apply.',
        'The competent courts of Tel Aviv-Yafo, Israel have exclusive jurisdiction over any dispute arising out of or in connection with the Agreement. The Provider may nevertheless seek urgent injunctive relief against misuse of the Services before any competent court.',
      ],
    },
    {
      id: 'terms-final-provisions',
      label: '15.',
      heading: 'Final provisions',
      content: [
        'The Agreement remains in force for as long as the Customer holds an account. The Customer may close its account at any time by writing to the Provider. The Provider may terminate the Agreement with immediate effect for a material breach, or without cause on 30 days’ notice. When the Agreement ends, access ends and the Customer’s data is deleted in accordance with the Privacy Policy.',
        {
          list: [
            'If any provision is found invalid, the remaining provisions stay in force, and the invalid provision is replaced by a valid one that comes closest to its purpose.',
            'A failure to enforce a provision is not a waiver of it.',
            'The Customer may not assign the Agreement without the Provider’s written consent. The Provider may assign it to a successor of its business.',
            `Notices to the Customer are sent to the Owner’s e-mail address; notices to the Provider are sent to ${LEGAL_EMAIL}.`,
            'Neither party is liable for a failure caused by events beyond its reasonable control.',
            'These Terms are written in English, and the English version prevails over any translation.',
            'Provisions that by their nature should survive the end of the Agreement, such as sections 10 to 12 and 14, survive it.',
          ],
        },
      ],
    },
    {
      id: 'terms-annex-public-sector',
      label: 'Annex I',
      heading: 'Governmental and law-enforcement entities',
      content: [
        'This annex applies to Customers that are government agencies, law-enforcement bodies, military organizations or other public authorities. Where it conflicts with the body of the Terms, this annex prevails.',
        {
          list: [
            'Legal mandate. The Customer uses the Services only within its statutory mandate and in accordance with the procedural rules that govern it, including any required warrant or internal authorisation, and keeps a record of the legal basis for its searches. It remains solely responsible for the admissibility and use of results as evidence.',
            'Minors. Searches concerning persons under 18 years of age are enabled only after enhanced verification of the law-enforcement Customer, and only for a specific case such as child protection or the search for a missing child. The Provider may require a case reference for such searches.',
            'Confidentiality of operations. The Provider treats the Customer’s search activity as confidential, limits staff access to what is strictly needed to operate the Services, and discloses it to third parties only where the law compels it, informing the Customer whenever it is permitted to do so.',
            'Procurement. Where public procurement rules require it, the parties may record the order in a purchase order or framework contract, and the Customer may pay by bank transfer on invoice. The Provider supplies the vendor documentation reasonably needed for procurement.',
            'Immunities and mandatory rules. Nothing in the Agreement waives an immunity that the Customer enjoys under its law. Where the Customer is legally unable to accept the provisions on indemnification, governing law or jurisdiction, the parties will agree in writing on replacement provisions that come as close as possible to their purpose.',
          ],
        },
      ],
    },
    {
      id: 'terms-annex-private-sector',
      label: 'Annex II',
      heading: 'Private-sector entities',
      content: [
        'This annex applies to Customers that are companies, financial institutions, insurers, non-profit organizations, research and educational institutions, investigation firms and other private-sector entities. Where it conflicts with the body of the Terms, this annex prevails.',
        {
          list: [
            'Legitimate purpose. Before using the Services the Customer documents its purpose, for example customer due diligence, anti-money-laundering and sanctions screening, fraud prevention or the protection of its staff and premises, and carries out a balancing test or data-protection impact assessment where the law requires one.',
            'Minors. Searches concerning persons under 18 years of age are not available to private-sector Customers.',
            'Prohibited purposes. Results must not be used for marketing, for decisions on credit, insurance, housing or employment unless the law expressly permits it and the person concerned has been informed, or for monitoring employees.',
            'Licensed activity. A Customer that carries out investigations for clients holds every licence its activity requires and shows it to the Provider on request. Its clients do not receive access to the Services, and the Customer remains responsible for the reports it shares with them.',
            'Cooperation. The Customer answers the Provider’s reasonable questions about the purpose of specific searches within ten business days.',
          ],
        },
      ],
    },
  ],
};
