import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import type { CrawlService, DemoCrawlTarget } from '../services/crawl.service.ts';
import {
  COURIER,
  DEMO_NOTICE,
  DEMO_PHOTOS,
  DIGEST,
  type DemoArticle,
  type DemoPhoto,
  type DemoSiteText,
} from './demo-content.ts';
import { demoWikiResponse } from './demo-wiki.ts';

/**
 * The bundled demo: two small fictional news sites (demo-content.ts) served on a loopback port under
 * two `*.demo.localhost` host names (browsers resolve those to this machine; the demo crawl pins them
 * to the loopback address), so that a fresh install has an index to search.
 */

const LOOPBACK = '127.0.0.1';

interface Resource {
  type: string;
  body: Buffer;
}

export interface DemoSite {
  address: string;
  port: number;
  hostnames: string[];
  /** Home pages of both sites. */
  urls: string[];
  /** What the demo crawl may reach: this address and port only. */
  crawlTarget: DemoCrawlTarget;
  /** Base URL of the demo's small wiki (the Wikipedia REST API for the fictional people; demo-wiki.ts). */
  wikiUrl: string;
  close(): Promise<void>;
}

/** Folder of the sample photos inside the face-api package. */
function samplesDir(): string {
  const packageJson = createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json');
  return path.join(path.dirname(packageJson), 'demo');
}

async function renderPhoto(photo: DemoPhoto): Promise<Buffer> {
  let image = sharp(path.join(samplesDir(), `sample${photo.sample}.jpg`));
  if (photo.crop) {
    const { left, top, size } = photo.crop;
    // extract works on the original; the crop boxes are measured on the 1920-px samples.
    image = sharp(await image.extract({ left, top, width: size, height: size }).toBuffer());
  }
  return image.resize({ width: photo.width }).jpeg({ quality: photo.quality, mozjpeg: true }).toBuffer();
}

/** Every photo of the demo, by file name. */
export async function renderDemoPhotos(): Promise<Map<string, Buffer>> {
  const entries = await Promise.all(
    Object.values(DEMO_PHOTOS).map(async (photo) => [photo.file, await renderPhoto(photo)] as const),
  );
  return new Map(entries);
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

function layout(site: DemoSiteText, title: string, body: string): string {
  const notice = `<p class="demo-notice"><strong>${DEMO_NOTICE}</strong></p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)} — ${escapeHtml(site.name)} (${DEMO_NOTICE})</title>
<meta name="description" content="${escapeHtml(`${DEMO_NOTICE}. ${site.tagline}`)}">
<style>body{font-family:Georgia,serif;max-width:760px;margin:0 auto;padding:1rem}
.demo-notice{background:#fff3cd;border:1px solid #e0c36a;padding:.5rem;text-align:center}
img{max-width:100%;height:auto}figcaption{font-size:.9rem;color:#555}</style>
</head>
<body>
${notice}
<header><h1><a href="/">${escapeHtml(site.name)}</a></h1><p>${escapeHtml(site.tagline)}</p></header>
<main>
${body}
</main>
<footer>${notice}<p>All people, organisations and events on this site are invented for the demonstration of
the OSINT Platform. Photos: sample pictures shipped with the face-api npm package.</p></footer>
</body>
</html>
`;
}

function articlePage(site: DemoSiteText, article: DemoArticle, courierOrigin: string): string {
  const photo = DEMO_PHOTOS[article.photo];
  const credit =
    site === DIGEST ? `<p>Source: <a href="${courierOrigin}/">The Riverton Courier</a> (fictional).</p>` : '';
  return layout(
    site,
    article.title,
    `<article>
<h2>${escapeHtml(article.title)}</h2>
<p><time datetime="${article.date}">${article.date}</time></p>
<figure><img src="/images/${photo.file}" alt="${escapeHtml(article.alt)}" width="${photo.width}">
<figcaption>${escapeHtml(article.caption)}</figcaption></figure>
${article.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${credit}
</article>`,
  );
}

function homePage(site: DemoSiteText): string {
  const items = site.articles
    .map((a) => {
      const photo = DEMO_PHOTOS[a.photo];
      return `<li><a href="${a.path}"><img src="/images/${photo.file}" alt="${escapeHtml(a.alt)}" width="160">
${escapeHtml(a.title)}</a> <time datetime="${a.date}">${a.date}</time></li>`;
    })
    .join('\n');
  return layout(site, 'Home', `<h2>Latest</h2>\n<ul>\n${items}\n</ul>`);
}

function sitemap(origin: string, site: DemoSiteText): string {
  const urls = ['/', ...site.articles.map((a) => a.path)].map((p) => `<url><loc>${origin}${p}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>
`;
}

/** The resources of both sites, by host name and path. */
export function buildDemoSites(
  port: number,
  photos: Map<string, Buffer>,
): Map<string, Map<string, Resource>> {
  const originOf = (host: string) => `http://${host}:${port}`;
  const sites = new Map<string, Map<string, Resource>>();
  const html = (text: string): Resource => ({ type: 'text/html; charset=utf-8', body: Buffer.from(text) });
  for (const site of [COURIER, DIGEST]) {
    const origin = originOf(site.host);
    const resources = new Map<string, Resource>();
    resources.set('/', html(homePage(site)));
    for (const article of site.articles) {
      resources.set(article.path, html(articlePage(site, article, originOf(COURIER.host))));
      const file = DEMO_PHOTOS[article.photo].file;
      resources.set(`/images/${file}`, { type: 'image/jpeg', body: photos.get(file)! });
    }
    resources.set('/robots.txt', {
      type: 'text/plain; charset=utf-8',
      body: Buffer.from(`# ${DEMO_NOTICE}\nUser-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`),
    });
    resources.set('/sitemap.xml', { type: 'application/xml', body: Buffer.from(sitemap(origin, site)) });
    sites.set(site.host, resources);
  }
  return sites;
}

/** Starts the demo sites on 127.0.0.1:`port` (0: any free port). */
export async function startDemoSite(options: { port: number }): Promise<DemoSite> {
  const photos = await renderDemoPhotos();
  let sites = new Map<string, Map<string, Resource>>();
  const server = http.createServer((req, res) => {
    const hostname = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const resource = sites.get(hostname)?.get((req.url ?? '/').split('?')[0]!);
    const wiki = demoWikiResponse(req.url ?? '/', `http://${req.headers.host ?? LOOPBACK}`);
    if (wiki && req.method === 'GET') {
      res
        .writeHead(wiki.status, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify(wiki.body));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (!resource) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`Not found. ${DEMO_NOTICE}.\n`);
    } else {
      res.writeHead(200, {
        'content-type': resource.type,
        'content-length': resource.body.length,
        'cache-control': 'public, max-age=3600',
      });
      res.end(req.method === 'HEAD' ? undefined : resource.body);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  sites = buildDemoSites(port, photos);
  const hostnames = [COURIER.host, DIGEST.host];
  const urls = hostnames.map((host) => `http://${host}:${port}/`);
  return {
    address: LOOPBACK,
    port,
    hostnames,
    urls,
    crawlTarget: { urls, address: LOOPBACK, port, hostnames },
    wikiUrl: `http://${LOOPBACK}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Start-up of the demo (main.ts): serves the demo sites and, when the index is still empty, queues
 * their crawl. A port already in use costs only the demo, never the start of the product.
 */
export async function startDemoData(
  crawl: CrawlService,
  port: number,
  log: { info(message: string): void; warn(message: string): void },
): Promise<DemoSite | undefined> {
  let site: DemoSite;
  try {
    site = await startDemoSite({ port });
  } catch (error) {
    log.warn(`Demo site not started on 127.0.0.1:${port} (${(error as Error).message}); set DEMO_SITE_PORT.`);
    return undefined;
  }
  const crawlId = await crawl.startDemoCrawlIfIndexEmpty(site.crawlTarget);
  if (crawlId)
    log.info(`Empty index: crawling the bundled demo site (${site.urls.join(', ')}), crawl ${crawlId}.`);
  return site;
}
