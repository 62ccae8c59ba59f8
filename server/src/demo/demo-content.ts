// The demo site's words: two small fictional news sites about an invented town. Every person, company,
// court case and quotation here is made up; the photos are the sample pictures that ship with
// @vladmandic/face-api. The roles (a mayor, a company director, a court report, election candidates)
// give the data extractor something to find. No face is given a criminal role: the defendant of the
// court report is named in the text only, never pictured. One woman appears in two sample photos
// (sample 1 on the right, sample 3 in the centre; the face engine matches them at 0.97): she is Helena
// Marsh in both, so that a search for her finds pages that name her.

export const DEMO_NOTICE = 'Demo data — fictional people and pages';

export type SampleNumber = 1 | 2 | 3 | 4 | 5 | 6;

/** A photo of the demo: a whole sample picture, or a square crop of one face of it. */
export interface DemoPhoto {
  file: string;
  sample: SampleNumber;
  /** Crop of the 1920-px-wide original (a portrait); absent for the whole group photo. */
  crop?: { left: number; top: number; size: number };
  /** Width served. */
  width: number;
  quality: number;
}

export const NEWS_HOST = 'news.demo.localhost';
export const DIGEST_HOST = 'digest.demo.localhost';

/** Photos by name. Portrait crops are centred on a face found in the original by the face engine. */
export const DEMO_PHOTOS = {
  festival: { file: 'riverside-festival.jpg', sample: 1, width: 800, quality: 82 },
  library: { file: 'library-reopens.jpg', sample: 2, width: 800, quality: 82 },
  northwind: { file: 'northwind-team.jpg', sample: 3, width: 800, quality: 82 },
  candidates: { file: 'council-candidates.jpg', sample: 4, width: 800, quality: 82 },
  gala: { file: 'hospice-gala.jpg', sample: 5, width: 800, quality: 82 },
  court: { file: 'crown-court-witnesses.jpg', sample: 6, width: 800, quality: 82 },
  marsh: {
    file: 'helena-marsh.jpg',
    sample: 1,
    crop: { left: 1374, top: 147, size: 390 },
    width: 320,
    quality: 85,
  },
  mendes: {
    file: 'carla-mendes.jpg',
    sample: 3,
    crop: { left: 445, top: 239, size: 494 },
    width: 320,
    quality: 85,
  },
  // The digest re-publishes Courier photos smaller and recompressed: other bytes, the same picture.
  festivalCopy: { file: 'festival-courier.jpg', sample: 1, width: 560, quality: 55 },
  galaCopy: { file: 'gala-courier.jpg', sample: 5, width: 560, quality: 55 },
  northwindCopy: { file: 'northwind-courier.jpg', sample: 3, width: 560, quality: 55 },
} satisfies Record<string, DemoPhoto>;

export type PhotoName = keyof typeof DEMO_PHOTOS;

export interface DemoArticle {
  path: string;
  title: string;
  date: string;
  photo: PhotoName;
  caption: string;
  alt: string;
  paragraphs: string[];
}

export interface DemoSiteText {
  host: string;
  name: string;
  tagline: string;
  articles: DemoArticle[];
}

export const COURIER: DemoSiteText = {
  host: NEWS_HOST,
  name: 'The Riverton Courier',
  tagline: 'News from Riverton and the Ashvale valley since 1902 (a fictional town and paper).',
  articles: [
    {
      path: '/news/riverside-festival-opens',
      title: 'Mayor Helena Marsh opens the Riverside Festival',
      date: '2024-05-24',
      photo: 'festival',
      alt: 'Three women smiling at the festival launch',
      caption:
        'Festival organisers Priya Anand (left) and Jo Whitcombe with Mayor Helena Marsh (right) at the launch.',
      paragraphs: [
        'Mayor Helena Marsh opened the twelfth Riverside Festival on Friday evening, promising that the ' +
          'town council would keep the riverside path open to cyclists all summer.',
        '"Riverton is at its best when the whole town comes down to the water," said Ms Marsh, who was ' +
          'elected mayor for the Riverton Civic Party in 2021.',
        'The festival, organised by Priya Anand and Jo Whitcombe of the Ashvale Arts Trust, runs until Sunday.',
      ],
    },
    {
      path: '/news/northwind-logistics-expands',
      title: 'Northwind Logistics to open a second depot in Ashvale',
      date: '2024-06-11',
      photo: 'northwind',
      alt: 'Three women at the Northwind Logistics yard',
      caption:
        'Managing director Carla Mendes (left) with Mayor Helena Marsh (centre) and operations manager ' +
        'Lena Fischer (right) at the Mill Lane yard.',
      paragraphs: [
        'Northwind Logistics Ltd, the Riverton haulage firm, will open a second depot on the Ashvale ' +
          'industrial estate next spring, creating about 80 jobs.',
        'Managing director Carla Mendes said the company had outgrown its Mill Lane yard. "We have ' +
          'doubled our fleet in three years," she said during a visit by Mayor Helena Marsh.',
        'Ms Mendes, who founded the company with her brother in 2009, also sits on the board of the ' +
          'Ashvale Chamber of Commerce.',
      ],
    },
    {
      path: '/news/court-fraud-verdict',
      title: 'Former finance officer guilty of £2m fraud',
      date: '2024-07-03',
      photo: 'court',
      alt: 'Four women standing together indoors',
      caption:
        'Tara Lin, Mara Quill, Ines Duarte and Beth Carver, former colleagues who gave evidence for ' +
        'the prosecution, after the verdict.',
      paragraphs: [
        'Victor Hale, 52, of Quarry Road, Riverton, a former finance officer of the Ashvale Water ' +
          'Company, was found guilty at Riverton Crown Court of fraud by abuse of position.',
        'The jury heard that Hale moved more than £2 million into accounts he controlled over six ' +
          'years. Judge Martin Cole adjourned sentencing until next month.',
        'Four former colleagues of Hale gave evidence for the prosecution. None of them was accused of ' +
          'any wrongdoing.',
      ],
    },
    {
      path: '/news/hospice-gala',
      title: 'Hospice gala raises £48,000',
      date: '2024-08-19',
      photo: 'gala',
      alt: 'Five volunteers on a staircase',
      caption:
        'Gala volunteers Mei Tanaka, Rosa Ibarra, June Park, Alma Reyes and Dana Whitfield on the ' +
        'staircase of the Corn Exchange.',
      paragraphs: [
        'The annual gala of the Riverton Hospice raised £48,000 on Saturday, its best result yet.',
        'Mayor Helena Marsh thanked the volunteers, led this year by Dana Whitfield.',
      ],
    },
    {
      path: '/news/council-candidates',
      title: 'Four candidates for the Ashvale ward by-election',
      date: '2024-09-02',
      photo: 'candidates',
      alt: 'Four candidates posing together',
      caption: 'Candidates Nadia Farouk, Elise Morgan, Grace Okafor and Anna Lindqvist at the hustings.',
      paragraphs: [
        'Four candidates are standing in the Ashvale ward by-election on 3 October: Nadia Farouk ' +
          '(Riverton Civic Party), Elise Morgan (Green Valley), Grace Okafor (Independent) and Anna ' +
          'Lindqvist (Liberal Alliance).',
        'The seat fell vacant when councillor Peter Dunn was appointed deputy mayor.',
      ],
    },
    {
      path: '/news/library-reopens',
      title: 'Riverton library reopens after a year of repairs',
      date: '2024-10-14',
      photo: 'library',
      alt: 'Three volunteers sitting on a sofa',
      caption: 'Reading-club volunteers Chloe Brandt, Yara Haddad and Nina Sorensen in the new reading room.',
      paragraphs: [
        'Riverton library reopened on Monday with a new reading room and a café run by volunteers.',
        'The reading club, led by Yara Haddad, meets on Thursday evenings.',
      ],
    },
    {
      path: '/people/helena-marsh',
      title: 'Profile: Helena Marsh, Mayor of Riverton',
      date: '2024-05-01',
      photo: 'marsh',
      alt: 'Portrait of Helena Marsh',
      caption: 'Helena Marsh, Mayor of Riverton (Riverton Civic Party).',
      paragraphs: [
        'Helena Marsh has been Mayor of Riverton since 2021. Before entering politics she taught ' +
          'history at Ashvale High School.',
        'She chairs the council’s planning committee and represents the town on the Ashvale Valley ' +
          'Transport Board.',
      ],
    },
    {
      path: '/people/carla-mendes',
      title: 'Profile: Carla Mendes, managing director of Northwind Logistics',
      date: '2024-06-12',
      photo: 'mendes',
      alt: 'Portrait of Carla Mendes',
      caption: 'Carla Mendes, managing director of Northwind Logistics Ltd.',
      paragraphs: [
        'Carla Mendes founded Northwind Logistics in 2009 and has led it since. The company employs ' +
          '240 people in Riverton.',
        'She is a board member of the Ashvale Chamber of Commerce.',
      ],
    },
  ],
};

export const DIGEST: DemoSiteText = {
  host: DIGEST_HOST,
  name: 'Valley Daily Digest',
  tagline: 'The week in the Ashvale valley, collected from local papers (a fictional aggregator).',
  articles: [
    {
      path: '/weekly/riverton-roundup',
      title: 'Riverton round-up: festival season begins',
      date: '2024-05-27',
      photo: 'festivalCopy',
      alt: 'Festival launch in Riverton',
      caption: 'Mayor Helena Marsh (right) at the Riverside Festival launch. Photo: The Riverton Courier.',
      paragraphs: [
        'Riverton’s mayor Helena Marsh opened the Riverside Festival on Friday, reports the Riverton Courier.',
      ],
    },
    {
      path: '/weekly/hospice-gala',
      title: 'Hospice gala breaks its record',
      date: '2024-08-20',
      photo: 'galaCopy',
      alt: 'Hospice gala volunteers',
      caption: 'Volunteers at the Riverton Hospice gala. Photo: The Riverton Courier.',
      paragraphs: ['The Riverton Hospice gala raised £48,000, according to the Riverton Courier.'],
    },
    {
      path: '/business/northwind-depot',
      title: 'Haulier Northwind expands into Ashvale',
      date: '2024-06-12',
      photo: 'northwindCopy',
      alt: 'Northwind Logistics director and the mayor',
      caption:
        'Northwind Logistics director Carla Mendes (left) with Riverton mayor Helena Marsh. ' +
        'Photo: The Riverton Courier.',
      paragraphs: [
        'Northwind Logistics, led by Carla Mendes, will open a depot in Ashvale, the Riverton Courier reports.',
      ],
    },
  ],
};
