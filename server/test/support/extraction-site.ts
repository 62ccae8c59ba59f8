import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';

/**
 * A small fictional news site for the data-extractor tests, served from loopback and crawled for real.
 * Every person and story is made up; the photos are the face-api sample pictures. The subject,
 * minister "Amelia Okafor", is the woman of sample 1 (right) and sample 3 (centre). "Viktor Draganov"
 * (sanctioned businessman) is the man on the left of sample 3; he is named only on his own page, so the
 * forum page shows him by face alone. "Marco Vellini" (wanted) is the man in the middle of sample 1,
 * named on the gala page next to the minister and on the police page with his portrait. The other faces
 * are bystanders nobody names.
 */

interface Crop {
  sample: 1 | 3;
  /** Square crop of the 1920-px original; absent for the whole photo. */
  crop?: { left: number; top: number; size: number };
  width: number;
  quality: number;
}

const PHOTOS = {
  'okafor-portrait.jpg': { sample: 1, crop: { left: 1374, top: 147, size: 390 }, width: 320, quality: 85 },
  'harbour-forum.jpg': { sample: 3, width: 800, quality: 82 },
  'harbour-forum-archive.jpg': { sample: 3, width: 640, quality: 60 },
  'charity-gala.jpg': { sample: 1, width: 800, quality: 82 },
  'gala-gallery.jpg': { sample: 1, width: 560, quality: 55 },
  'draganov-portrait.jpg': { sample: 3, crop: { left: 445, top: 239, size: 494 }, width: 320, quality: 85 },
  'vellini-portrait.jpg': { sample: 1, crop: { left: 738, top: 355, size: 400 }, width: 320, quality: 85 },
} satisfies Record<string, Crop>;

export type ExtractionPhoto = keyof typeof PHOTOS;

interface Page {
  title: string;
  photo: ExtractionPhoto;
  alt: string;
  caption: string;
  paragraphs: string[];
}

/** Pages by path. */
export const EXTRACTION_PAGES = {
  '/politics/okafor-port-visit.html': {
    title: 'Minister Okafor visits the new container terminal',
    photo: 'okafor-portrait.jpg',
    alt: 'Amelia Okafor',
    caption: 'Minister Amelia Okafor during her visit to the port.',
    paragraphs: [
      'Amelia Okafor, the Minister of Transport, visited the new container terminal on Monday.',
      'She said the terminal would bring four hundred jobs to the region by next spring.',
    ],
  },
  '/business/harbour-forum.html': {
    title: 'Investors meet at the harbour forum',
    photo: 'harbour-forum.jpg',
    alt: 'Guests of the harbour investment forum',
    caption: 'Amelia Okafor (centre) with guests of the harbour investment forum.',
    paragraphs: [
      'Business leaders from six countries met at the harbour investment forum on Thursday.',
      'The minister opened the forum with a speech on shipping routes.',
    ],
  },
  '/society/charity-gala.html': {
    title: 'Charity gala raises funds for the children’s ward',
    photo: 'charity-gala.jpg',
    alt: 'Guests at the charity gala',
    caption: 'Amelia Okafor and Marco Vellini at the charity gala.',
    paragraphs: [
      'The annual charity gala raised funds for the children’s ward of the city hospital.',
      'Guests included Amelia Okafor and Marco Vellini, who arrived together.',
    ],
  },
  '/society/gala-gallery.html': {
    title: 'Gallery: an evening in pictures',
    photo: 'gala-gallery.jpg',
    alt: 'An evening in pictures',
    caption: 'An evening in pictures.',
    paragraphs: ['Our photographer was there. More pictures in the weekend edition.'],
  },
  '/archive/forum-archive.html': {
    title: 'From the archive: the forum',
    photo: 'harbour-forum-archive.jpg',
    alt: 'Archive photo',
    caption: 'Archive photo of the harbour forum.',
    paragraphs: ['An archived copy of our forum report.'],
  },
  '/business/draganov-sanctions.html': {
    title: 'Shipping magnate placed under sanctions',
    photo: 'draganov-portrait.jpg',
    alt: 'Viktor Draganov',
    caption: 'Viktor Draganov, shipping magnate.',
    paragraphs: [
      'Viktor Draganov, a shipping businessman, was placed under sanctions by the Council on Friday.',
      'His assets have been frozen and he is subject to a travel ban.',
    ],
  },
  '/police/wanted-vellini.html': {
    title: 'Police appeal: Marco Vellini',
    photo: 'vellini-portrait.jpg',
    alt: 'Marco Vellini',
    caption: 'Marco Vellini is wanted by the police.',
    paragraphs: [
      'Police are searching for Marco Vellini, who is wanted for armed robbery.',
      'Anyone who sees him should call the police and not approach him.',
    ],
  },
} satisfies Record<string, Page>;

export type ExtractionPagePath = keyof typeof EXTRACTION_PAGES;

/**
 * The site also speaks Wikipedia's REST API (page summary, and a search that finds nothing more) for the
 * minister, so that an extraction pointed at it (WIKIPEDIA_URL) gets her article.
 */
const WIKIPEDIA_SUMMARIES: Record<string, (base: string) => unknown> = {
  Amelia_Okafor: (base) => ({
    type: 'standard',
    title: 'Amelia Okafor',
    titles: { normalized: 'Amelia Okafor' },
    description: 'Minister of Transport',
    extract:
      'Amelia Okafor (born 1971) is a politician who has served as Minister of Transport since 2021. ' +
      'Before entering politics she ran a shipping consultancy.',
    content_urls: { desktop: { page: `${base}/wiki/Amelia_Okafor` } },
  }),
};

function wikipediaAnswer(url: URL, base: string): { status: number; body: unknown } | undefined {
  if (url.pathname.startsWith('/api/rest_v1/page/summary/')) {
    const summary = WIKIPEDIA_SUMMARIES[decodeURIComponent(url.pathname.split('/').pop() ?? '')];
    return summary ? { status: 200, body: summary(base) } : { status: 404, body: { title: 'Not found.' } };
  }
  if (url.pathname === '/w/rest.php/v1/search/page') return { status: 200, body: { pages: [] } };
  return undefined;
}

export interface ExtractionSite {
  url: string;
  port: number;
  /** The crawl target: this server on loopback (the test crawl may reach it past the SSRF guard). */
  crawlTarget: { urls: string[]; address: string; port: number; hostnames: string[] };
  photos: Map<ExtractionPhoto, Buffer>;
  pageUrl(pagePath: ExtractionPagePath): string;
  close(): Promise<void>;
}

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function samplesDir(): string {
  const packageJson = createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json');
  return path.join(path.dirname(packageJson), 'demo');
}

async function render(photo: Crop): Promise<Buffer> {
  let image = sharp(path.join(samplesDir(), `sample${photo.sample}.jpg`));
  if (photo.crop) {
    const { left, top, size } = photo.crop;
    image = sharp(await image.extract({ left, top, width: size, height: size }).toBuffer());
  }
  return image.resize({ width: photo.width }).jpeg({ quality: photo.quality }).toBuffer();
}

function pageHtml(page: Page): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(page.title)}</title></head>
<body><header><a href="/">The Harbour Herald</a></header><main><article>
<h1>${escape(page.title)}</h1>
<figure><img src="/photos/${page.photo}" alt="${escape(page.alt)}"><figcaption>${escape(page.caption)}</figcaption></figure>
${page.paragraphs.map((p) => `<p>${escape(p)}</p>`).join('\n')}
</article></main><footer><p>The Harbour Herald is a fictional newspaper of the OSINT Platform tests.</p></footer></body></html>`;
}

function homeHtml(): string {
  const links = Object.entries(EXTRACTION_PAGES)
    .map(([href, page]) => `<li><a href="${href}">${escape(page.title)}</a></li>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The Harbour Herald</title></head>
<body><h1>The Harbour Herald</h1><ul>${links}</ul></body></html>`;
}

export async function startExtractionSite(): Promise<ExtractionSite> {
  const photos = new Map<ExtractionPhoto, Buffer>();
  for (const [name, photo] of Object.entries(PHOTOS) as Array<[ExtractionPhoto, Crop]>) {
    photos.set(name, await render(photo));
  }
  let base = '';
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    const wikipedia = wikipediaAnswer(url, base);
    if (wikipedia) {
      response
        .writeHead(wikipedia.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(wikipedia.body));
      return;
    }
    if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(homeHtml());
      return;
    }
    const page = (EXTRACTION_PAGES as Record<string, Page>)[url.pathname];
    if (page) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(page));
      return;
    }
    const photo = photos.get(url.pathname.replace('/photos/', '') as ExtractionPhoto);
    if (photo && url.pathname.startsWith('/photos/')) {
      response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  base = url;
  return {
    url,
    port,
    crawlTarget: { urls: [`${url}/`], address: '127.0.0.1', port, hostnames: [] },
    photos,
    pageUrl: (pagePath) => `${url}${pagePath}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
