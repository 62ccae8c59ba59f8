import type { LegalDocumentContent } from './legal-document';
import {
  COMPANY_NAME,
  COMPANY_SEAT,
  INACTIVITY_RETENTION_DAYS,
  LOG_RETENTION_DAYS,
  PRIVACY_EMAIL,
  PRODUCT_NAME,
  RECORD_RETENTION_YEARS,
} from './promo-constants';

export const PRIVACY_POLICY: LegalDocumentContent = {
  title: 'Privacy Policy',
  summary: `How ${COMPANY_NAME} processes personal data when it provides the ${PRODUCT_NAME} platform, who is responsible for what, and how long data is kept.`,
  intro: [
    `This Privacy Policy explains how ${COMPANY_NAME} (“we” or “us”) processes personal data in connection with the ${PRODUCT_NAME} platform and website. It is addressed to our customers and their users, and to anyone whose image may appear in search results.`,
    `${PRODUCT_NAME} is a professional tool for verified organizations. Because those organizations decide whom they search for and why, most of the processing described here is carried out on their behalf. Questions about this policy can be sent to ${PRIVACY_EMAIL}.`,
  ],
  sections: [
    {
      id: 'privacy-roles',
      label: '1.',
      heading: 'Roles',
      content: [
        'When a customer uses the face search, the AI data extractor, saved searches or reports, the customer is the data controller: it decides which photos to upload, whom to search for and what to do with the results. We act as data processor and process that data only on the customer’s instructions, as set out in our Terms of Service.',
        'For the limited data we need to run customer accounts and our website, such as the contact details of users, billing records and security logs, we decide how the data is processed and are responsible for it accordingly.',
        'Internally, access to data is role-based: staff can reach only the systems and records their role requires, and every access to customer content is logged.',
      ],
    },
    {
      id: 'privacy-definitions',
      label: '2.',
      heading: 'Definitions',
      content: [
        {
          list: [
            '“Personal data” means any information relating to an identified or identifiable natural person (the “data subject”).',
            '“Processing” means any operation performed on personal data, such as collecting, storing, comparing, disclosing or deleting it.',
            '“Controller” means the organization that determines the purposes and means of processing; “processor” means the organization that processes personal data on the controller’s behalf.',
            '“Customer” means a verified organization that holds an account; “user” means a person the customer has authorised to use its account.',
            '“Face descriptor” means a series of numbers computed from the image of a face that allows two faces to be compared. A descriptor cannot be turned back into a photograph.',
            '“Index” means our searchable collection of images published on publicly available websites, with their face descriptors and publication details.',
            '“Results” means the matches, analyses, saved searches and reports produced for a customer.',
            '“Subprocessor” means a third party that processes personal data on our behalf as part of the Services.',
          ],
        },
      ],
    },
    {
      id: 'privacy-processing-activities',
      label: '3.',
      heading: 'Processing activities',
      content: [
        'We process personal data in the following activities:',
        {
          list: [
            'Face search (on behalf of customers). A user uploads a photo; we detect the faces in it and compute their descriptors in memory, compare them with the index and return similar faces. The photo itself is never written to storage, and its descriptors are discarded shortly after the search unless the user saves the search or watches the face, as described below.',
            'The index. We collect images from publicly accessible web pages. For each image we record its address, the page that published it, the text near it, the date on which we first indexed it and the descriptors of the faces it shows. Social networks are indexed separately and searched only when a user requests it.',
            'AI data extractor (on behalf of customers). For results a user selects, we analyse the surrounding pages to identify names, links to criminal activity, political exposure or sanctions lists, and other persons seen with the subject. Each finding keeps the evidence it is based on, such as the sentence on the page or the watch-list entry.',
            'Saved searches and reports (on behalf of customers). We keep the results a user saves, with a small picture of the searched face, and generate PDF reports on request. Saved searches and analyses are available to all users of the customer’s organization.',
            'Face alerts (on behalf of customers). When a user watches a face, we keep that face’s descriptor, encrypted, and a small picture of it until the watch ends, compare it with newly indexed images and tell the organization about new matches.',
            'Account administration. We process the organization’s name, website and type, the e-mail addresses and roles of its users, login sessions, and newsletter preferences.',
            'Billing. We process orders, invoices and payment status. Card details are handled exclusively by our payment provider.',
            'Support. We process the messages and attachments sent to us through the contact form.',
            'Security and abuse prevention. We record technical logs, such as IP addresses, request times and the number of searches per account, to protect the Services and detect misuse.',
          ],
        },
        'We do not sell personal data, we do not use customer content to advertise, and we do not combine the searches of different customers.',
      ],
    },
    {
      id: 'privacy-controller-duties',
      label: '4.',
      heading: 'Duties of the controller',
      content: [
        'As controllers, our customers are responsible for the lawfulness of their searches. Each customer must in particular:',
        {
          list: [
            'have a valid legal basis and a legitimate, documented purpose for every search and analysis;',
            'limit searches to what is necessary and proportionate to that purpose;',
            'inform data subjects where the law requires it, and carry out a data-protection impact assessment where one is required;',
            'verify results before relying on them and never base a decision with legal or similarly significant effects solely on automated results;',
            'answer the requests of data subjects whose data it processes;',
            'give access only to users who need it and remove access promptly when they leave;',
            'upload only images it is entitled to use.',
          ],
        },
      ],
    },
    {
      id: 'privacy-data-subject-rights',
      label: '5.',
      heading: 'Data-subject rights',
      content: [
        'Under applicable data-protection law, data subjects may have the right to access their personal data, to have it corrected or erased, to restrict or object to its processing, to receive it in a portable format, and not to be subject to decisions based solely on automated processing.',
        'Requests about a search or analysis must be addressed to the organization that carried it out, because that organization is the controller. If we receive such a request, we forward it to the controller concerned without undue delay and let the requester know that we have done so. We assist our customers technically so that they can answer within the legal deadlines.',
        `If you would like an image of yourself to be removed from our index, or if you have a question about data we process for our own accounts, write to ${PRIVACY_EMAIL}. Removing an image from our index does not remove it from the website that published it.`,
        'You also have the right to lodge a complaint with a supervisory authority, in Israel the Privacy Protection Authority, or the authority of the country where you live.',
      ],
    },
    {
      id: 'privacy-subprocessors',
      label: '6.',
      heading: 'Subprocessors',
      content: [
        'We use a small number of subprocessors, each bound by a written agreement that imposes data-protection obligations equivalent to ours:',
        {
          list: [
            'a payment provider, which acts as merchant of record for card payments: it processes payment details, calculates taxes and issues receipts;',
            'a monitoring provider, which receives technical metrics and error reports so that we can detect failures and attacks around the clock;',
            'a support provider, whose tools we use to receive, track and answer support requests.',
          ],
        },
        'The current list of subprocessors is available to customers on request. We inform customers before adding or replacing a subprocessor, and a customer may object on reasonable grounds.',
      ],
    },
    {
      id: 'privacy-transfers',
      label: '7.',
      heading: 'International transfers',
      content: [
        'Our servers are located in the United States. Our support staff work from Israel and Georgia and may access account data, and customer content only where a support request requires it.',
        'Where personal data is transferred from a country that restricts such transfers, we rely on the appropriate safeguards: adequacy decisions where they exist, as for Israel, and otherwise standard contractual clauses together with supplementary technical and organisational measures. A copy of the relevant safeguards is available on request.',
      ],
    },
    {
      id: 'privacy-security',
      label: '8.',
      heading: 'Security',
      content: [
        'We protect personal data with technical and organisational measures appropriate to the risk, including:',
        {
          list: [
            'encryption of data in transit and at rest;',
            'role-based access control for internal staff, with the least privilege needed and multi-factor authentication;',
            'passwords stored only as salted hashes computed with a memory-hard algorithm;',
            'processing of uploaded photos in memory only;',
            'security audits every quarter and weekly security reports reviewed by management;',
            'monitoring of the infrastructure 24 hours a day, 7 days a week, with alerting and a documented incident-response procedure.',
          ],
        },
        'If a personal-data breach affects a customer’s data, we notify that customer without undue delay and provide the information it needs to meet its own obligations.',
      ],
    },
    {
      id: 'privacy-retention',
      label: '9.',
      heading: 'Retention',
      content: [
        'We keep personal data no longer than necessary:',
        {
          list: [
            'uploaded photos are not stored; when a user saves a search or watches a face for alerts, a small picture of the chosen face is kept with the saved search or the watch, and a watch’s face picture and descriptor are deleted when the watch ends;',
            `results, saved searches, analyses and search history are deleted after ${INACTIVITY_RETENTION_DAYS} days of inactivity of the customer’s account; users may delete them earlier, and deleting a user deletes that user’s saved searches and analyses;`,
            `system logs are anonymized after ${LOG_RETENTION_DAYS} days: IP addresses and the link to the user are removed and the user’s e-mail address is replaced by a pseudonym; records of billing and of our administrators’ actions keep their author for ${RECORD_RETENTION_YEARS} years;`,
            `billing and administrative records, including support correspondence, are kept for ${RECORD_RETENTION_YEARS} years to meet tax, accounting and legal obligations;`,
            'account data is kept while the account exists and deleted when it is closed, except for the records above;',
            'searches concerning persons under 18 years of age are blocked, so no such results are created, except for verified law-enforcement customers.',
          ],
        },
      ],
    },
    {
      id: 'privacy-childrens-data',
      label: '10.',
      heading: 'Children’s data',
      content: [
        'The Services are intended for organizations, and no one under 18 years of age may hold a user account.',
        'Searches concerning persons under 18 years of age are blocked. The only exception is for law-enforcement customers that have passed enhanced verification and search for a specific case, such as child protection or the search for a missing child. Results concerning minors are subject to additional access restrictions and are deleted under the same rules as all other results.',
        'How the block works: every face in an uploaded photo is given an automatic age estimate, and a face estimated under 28 years is treated as a possible minor and cannot be searched unless the customer is a verified law-enforcement body. The estimate errs on the side of the child: in our measurements it stops nearly every child and teenager, but also most adults aged 18 to 24 and, depending on the population, between about one in thirteen and four in ten older adults. Each refused search is recorded (who and when, never the photo), and so is every search of a possible minor by a verified law-enforcement customer. Faces in our index are estimated the same way when they are indexed, and those estimated as possible minors are never shown to other customers.',
      ],
    },
    {
      id: 'privacy-ethics',
      label: '11.',
      heading: 'Ethics',
      content: [
        'Face search is powerful, and we hold ourselves to principles that go beyond legal compliance:',
        {
          list: [
            'we work only with verified organizations that have a legitimate purpose, and we revoke access when we detect misuse;',
            'we do not offer real-time tracking of individuals and do not build permanent profiles of the people our customers search for;',
            'we do not infer ethnic origin, religion, health, sexual orientation or any other sensitive characteristic;',
            'every finding of the AI data extractor is explainable and comes with the evidence it is based on;',
            'results are an aid to human judgement, never a substitute for it.',
          ],
        },
        `If you believe the Services are being misused, please tell us at ${PRIVACY_EMAIL}. Every report is reviewed.`,
      ],
    },
    {
      id: 'privacy-changes',
      label: '12.',
      heading: 'Changes to this policy',
      content: [
        'We may update this Privacy Policy to reflect changes in the Services or in the law. The version date at the top of this page shows when it was last changed. We inform customers by e-mail at least 30 days before a material change takes effect, and previous versions are available on request.',
      ],
    },
    {
      id: 'privacy-jurisdiction',
      label: '13.',
      heading: 'Jurisdiction',
      content: [
        'This Privacy Policy is governed by the laws of the State of Israel. The competent courts of Tel Aviv-Yafo have exclusive jurisdiction over any dispute concerning it, without prejudice to any mandatory right of a data subject to turn to the supervisory authority or the courts of the country where they live.',
        `${COMPANY_NAME}, ${COMPANY_SEAT}. E-mail: ${PRIVACY_EMAIL}.`,
      ],
    },
  ],
};
