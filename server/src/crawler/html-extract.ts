import { parseDocument } from 'htmlparser2';
import { normalizeUrl } from './url-normalize.ts';

/**
 * Turns an HTML page into what the indexer needs: title, visible text, links, and every image with
 * the words around it (alt, figure caption, nearby paragraph/heading) that help identify who is shown.
 */

export interface PageImage {
  /** Absolute normalised URL of the best candidate (largest srcset entry). */
  url: string;
  alt: string;
  /** figcaption of the enclosing figure. */
  caption: string;
  /** Closest heading plus the surrounding paragraph (or neighbouring text), capped. */
  nearbyText: string;
  source: 'img' | 'picture' | 'meta';
}

export interface RobotsMeta {
  noindex: boolean;
  nofollow: boolean;
  noimageindex: boolean;
}

export interface ExtractedPage {
  title: string;
  /** Visible text: scripts/styles/hidden parts removed, spaces collapsed, one line per block, capped. */
  text: string;
  lang: string | undefined;
  description: string | undefined;
  canonical: string | undefined;
  /** Absolute normalised http(s) links in document order, deduplicated, capped. */
  links: string[];
  images: PageImage[];
  robots: RobotsMeta;
}

export interface ExtractOptions {
  maxTextChars?: number;
  maxNearbyChars?: number;
  maxLinks?: number;
  maxImages?: number;
  /** Product token whose own `<meta name="...">` robots directives apply besides `robots`. */
  productToken?: string;
}

type DomDocument = ReturnType<typeof parseDocument>;
type DomNode = DomDocument['children'][number];
type DomElement = Extract<DomNode, { attribs: Record<string, string> }>;

const EXTRACT_DEFAULTS = { maxTextChars: 100_000, maxNearbyChars: 500, maxLinks: 2_000, maxImages: 500 };

// Never rendered as text. `head` is skipped too: the title is read separately.
const INVISIBLE = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'select',
  'button',
]);

const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'caption',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);

// Elements whose text is "the paragraph around" an image.
const CONTEXT_BLOCKS = new Set(['p', 'li', 'dd', 'dt', 'td', 'th', 'blockquote', 'figure', 'caption']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

function isElement(node: DomNode | DomDocument | null | undefined): node is DomElement {
  return !!node && 'attribs' in node && typeof (node as DomElement).name === 'string';
}

function isHidden(el: DomElement): boolean {
  const { attribs } = el;
  if ('hidden' in attribs) return true;
  if (el.name === 'input' && attribs.type === 'hidden') return true;
  return /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)/i.test(attribs.style ?? '');
}

/** Collapses spaces inside lines and blank lines between them. */
function collapse(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[\s\u00a0]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

function flat(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const lastSpace = cut.lastIndexOf(' ');
  return (lastSpace > max * 0.8 ? cut.slice(0, lastSpace) : cut).trimEnd();
}

/** Visible text under `node`, blocks on their own lines; `skip` excludes a subtree (e.g. a figcaption). */
function visibleText(
  node: DomNode | DomDocument,
  limit = Infinity,
  skip?: (el: DomElement) => boolean,
): string {
  const parts: string[] = [];
  let length = 0;
  const walk = (current: DomNode | DomDocument): void => {
    if (length >= limit) return;
    if (current.type === 'text') {
      const data = (current as { data: string }).data;
      parts.push(data);
      length += data.length;
      return;
    }
    if (isElement(current)) {
      if (INVISIBLE.has(current.name) || isHidden(current) || skip?.(current)) return;
      const block = BLOCKS.has(current.name);
      if (block) parts.push('\n');
      for (const child of current.children) walk(child);
      if (block) parts.push('\n');
      return;
    }
    if ('children' in current) for (const child of current.children) walk(child as DomNode);
  };
  walk(node);
  return collapse(parts.join(''));
}

function* elements(root: DomNode | DomDocument): Generator<DomElement> {
  const children = 'children' in root ? (root.children as DomNode[]) : [];
  for (const child of children) {
    if (isElement(child)) {
      yield child;
      yield* elements(child);
    }
  }
}

function closest(el: DomElement, test: (el: DomElement) => boolean): DomElement | undefined {
  for (let current = el.parent; isElement(current as DomNode); current = (current as DomElement).parent) {
    if (test(current as DomElement)) return current as DomElement;
  }
  return undefined;
}

interface Candidate {
  url: string;
  width: number; // 0 when unknown
  density: number;
}

/**
 * Parses a srcset value the way browsers do: a URL runs to the next whitespace (a trailing comma ends
 * it), then descriptors run to the next comma. Splitting on commas would break URLs that contain them.
 */
export function parseSrcset(srcset: string): Candidate[] {
  const candidates: Candidate[] = [];
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && /[\s,]/.test(srcset[i]!)) i++;
    const start = i;
    while (i < srcset.length && !/\s/.test(srcset[i]!)) i++;
    let url = srcset.slice(start, i);
    let descriptor = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      const from = i;
      while (i < srcset.length && srcset[i] !== ',') i++;
      descriptor = srcset.slice(from, i).trim();
    }
    if (!url) continue;
    const width = /^(\d+)w$/i.exec(descriptor);
    const density = /^(\d*\.?\d+)x$/i.exec(descriptor);
    candidates.push({ url, width: width ? Number(width[1]) : 0, density: density ? Number(density[1]) : 1 });
  }
  return candidates;
}

function best(candidates: Candidate[]): Candidate | undefined {
  return [...candidates].sort((a, b) => b.width - a.width || b.density - a.density)[0];
}

function usableSrc(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  if (!trimmed || /^(data|blob|javascript):/i.test(trimmed)) return undefined;
  return trimmed;
}

/**
 * Candidates of one img (src, srcset, and the lazy-loading data-* attributes many sites use). A lazily
 * loaded image names its photo in data-*; its src and srcset are then a placeholder (a spacer, a blur).
 */
function imgCandidates(el: DomElement): Candidate[] {
  const a = el.attribs;
  const srcset = a['data-srcset'] || a.srcset || '';
  const list = parseSrcset(srcset).filter((c) => usableSrc(c.url));
  const src =
    usableSrc(a['data-src']) ??
    usableSrc(a['data-lazy-src']) ??
    usableSrc(a['data-original']) ??
    usableSrc(a.src);
  if (src) list.push({ url: src, width: 0, density: 1 });
  return list;
}

function sourceCandidates(picture: DomElement): Candidate[] {
  const list: Candidate[] = [];
  for (const child of picture.children) {
    if (!isElement(child) || child.name !== 'source') continue;
    if (/svg/i.test(child.attribs.type ?? '')) continue;
    list.push(
      ...parseSrcset(child.attribs.srcset || child.attribs['data-srcset'] || '').filter((c) =>
        usableSrc(c.url),
      ),
    );
  }
  return list;
}

/**
 * Text worked out once per element and page: a figure's caption, a block's text. A page of thousands of
 * images in one block (a gallery) read that block again for each image, which took minutes and held the
 * server's event loop all along.
 */
type TextCache = Map<DomElement, string>;

function captionOf(el: DomElement, cache: TextCache): string {
  const figure = closest(el, (e) => e.name === 'figure');
  if (!figure) return '';
  let caption = cache.get(figure);
  if (caption === undefined) {
    caption = '';
    for (const node of elements(figure)) {
      // A figcaption of a nested figure describes that figure, not ours.
      if (node.name === 'figcaption' && closest(node, (e) => e.name === 'figure') === figure) {
        caption = flat(visibleText(node));
        break;
      }
    }
    cache.set(figure, caption);
  }
  return caption;
}

/** Siblings looked at for the text next to a lone image: the nearest ones (a gallery has thousands). */
const MAX_SIBLINGS_READ = 20;

function siblingText(el: DomElement, direction: 'previous' | 'next', limit: number): string {
  let read = 0;
  for (
    let sib = direction === 'previous' ? el.prev : el.next;
    sib && read < MAX_SIBLINGS_READ;
    sib = direction === 'previous' ? sib.prev : sib.next, read++
  ) {
    const text = flat(visibleText(sib as DomNode, limit));
    if (text) return text;
  }
  return '';
}

/** Heading before the image, the paragraph around it, or the text next to it when it stands alone. */
function nearbyTextOf(el: DomElement, heading: string, max: number, cache: TextCache): string {
  const parts: string[] = heading ? [heading] : [];
  const block = closest(el, (e) => CONTEXT_BLOCKS.has(e.name));
  let around = '';
  if (block) {
    let text = cache.get(block);
    if (text === undefined) {
      text = flat(visibleText(block, max * 2, (e) => e.name === 'figcaption'));
      cache.set(block, text);
    }
    around = text;
  }
  if (!around) {
    // The image stands alone (in a figure, a div, a link): climb out of wrappers until a neighbour has text.
    let anchor: DomElement = block ?? el;
    for (let depth = 0; depth < 4; depth++) {
      const neighbours = [siblingText(anchor, 'previous', max), siblingText(anchor, 'next', max)].filter(
        (t) => t && t !== heading,
      );
      if (neighbours.length) {
        around = neighbours.join(' ');
        break;
      }
      const parent = anchor.parent;
      if (!isElement(parent as DomNode) || (parent as DomElement).name === 'body') break;
      anchor = parent as DomElement;
    }
  }
  if (around && around !== heading) parts.push(around);
  return cap(parts.join(' — '), max);
}

function metaContent(doc: DomDocument, ...names: string[]): string | undefined {
  for (const el of elements(doc)) {
    if (el.name !== 'meta') continue;
    const key = (el.attribs.property ?? el.attribs.name ?? '').toLowerCase();
    if (names.includes(key) && el.attribs.content?.trim()) return el.attribs.content.trim();
  }
  return undefined;
}

function robotsMeta(doc: DomDocument, productToken: string | undefined): RobotsMeta {
  const names = ['robots', ...(productToken ? [productToken.toLowerCase()] : [])];
  const directives = new Set<string>();
  for (const el of elements(doc)) {
    if (el.name !== 'meta' || !names.includes((el.attribs.name ?? '').toLowerCase())) continue;
    for (const d of (el.attribs.content ?? '').toLowerCase().split(/[\s,]+/)) directives.add(d);
  }
  return {
    noindex: directives.has('noindex') || directives.has('none'),
    nofollow: directives.has('nofollow') || directives.has('none'),
    noimageindex: directives.has('noimageindex'),
  };
}

/** Reads the charset from the Content-Type header, a BOM or an early `<meta>`, then decodes. */
export function decodeHtml(body: Buffer, contentType: string | undefined): string {
  let label = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (!label) {
    if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) label = 'utf-8';
    else if (body[0] === 0xff && body[1] === 0xfe) label = 'utf-16le';
    else if (body[0] === 0xfe && body[1] === 0xff) label = 'utf-16be';
  }
  if (!label) {
    const head = body.subarray(0, 4096).toString('latin1');
    label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(label ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body); // unknown label
  }
}

export function extractPage(html: string, pageUrl: string, options: ExtractOptions = {}): ExtractedPage {
  const limits = { ...EXTRACT_DEFAULTS, ...options };
  const doc = parseDocument(html, { lowerCaseTags: true, lowerCaseAttributeNames: true });
  const all = [...elements(doc)];

  const baseHref = all.find((el) => el.name === 'base' && el.attribs.href)?.attribs.href;
  const base = (baseHref && normalizeUrl(baseHref, pageUrl)) || pageUrl;

  const titleEl = all.find((el) => el.name === 'title' && !closest(el, (e) => e.name === 'svg'));
  const title =
    flat(titleEl ? visibleText(titleEl) : '') ||
    metaContent(doc, 'og:title') ||
    flat(visibleText(all.find((el) => el.name === 'h1') ?? doc, 300));

  const bodyEl = all.find((el) => el.name === 'body') ?? doc;
  const text = cap(visibleText(bodyEl, limits.maxTextChars * 2), limits.maxTextChars);

  const links: string[] = [];
  const seenLinks = new Set<string>();
  for (const el of all) {
    if ((el.name !== 'a' && el.name !== 'area') || !el.attribs.href) continue;
    const url = normalizeUrl(el.attribs.href, base);
    if (!url || seenLinks.has(url)) continue;
    seenLinks.add(url);
    links.push(url);
    if (links.length >= limits.maxLinks) break;
  }

  const images: PageImage[] = [];
  const byUrl = new Map<string, PageImage>();
  const addImage = (image: PageImage): void => {
    const existing = byUrl.get(image.url);
    if (existing) {
      // Same picture shown twice: keep the first, fill in what it lacked.
      existing.alt ||= image.alt;
      existing.caption ||= image.caption;
      existing.nearbyText ||= image.nearbyText;
      return;
    }
    if (images.length >= limits.maxImages) return;
    byUrl.set(image.url, image);
    images.push(image);
  };

  const captions: TextCache = new Map();
  const blockTexts: TextCache = new Map();
  let heading = '';
  for (const el of all) {
    if (HEADINGS.has(el.name)) {
      heading = cap(flat(visibleText(el)), 200);
      continue;
    }
    if (el.name !== 'img' || closest(el, (e) => INVISIBLE.has(e.name))) continue;
    const { width, height } = el.attribs;
    if (width && height && Number(width) <= 2 && Number(height) <= 2) continue; // tracking pixel
    const picture =
      el.parent && isElement(el.parent as DomNode) && (el.parent as DomElement).name === 'picture';
    const candidates = imgCandidates(el);
    if (picture) candidates.push(...sourceCandidates(el.parent as DomElement));
    const chosen = best(candidates);
    const url = chosen && normalizeUrl(chosen.url, base);
    if (!url) continue;
    // Past the page's limit only images already kept can gain context: others are not worked out.
    if (images.length >= limits.maxImages && !byUrl.has(url)) continue;
    addImage({
      url,
      alt: flat(el.attribs.alt ?? ''),
      caption: cap(captionOf(el, captions), limits.maxNearbyChars),
      nearbyText: nearbyTextOf(el, heading, limits.maxNearbyChars, blockTexts),
      source: picture ? 'picture' : 'img',
    });
  }

  const description = metaContent(doc, 'description', 'og:description');
  const ogImage = metaContent(
    doc,
    'og:image:secure_url',
    'og:image',
    'og:image:url',
    'twitter:image',
    'twitter:image:src',
  );
  const ogUrl = ogImage && normalizeUrl(ogImage, base);
  if (ogUrl) {
    addImage({
      url: ogUrl,
      alt: flat(metaContent(doc, 'og:image:alt', 'twitter:image:alt') ?? ''),
      caption: '',
      nearbyText: cap([title, description].filter(Boolean).join(' — '), limits.maxNearbyChars),
      source: 'meta',
    });
  }

  const htmlEl = all.find((el) => el.name === 'html');
  const canonicalHref = all.find(
    (el) => el.name === 'link' && /(^|\s)canonical(\s|$)/i.test(el.attribs.rel ?? '') && el.attribs.href,
  )?.attribs.href;

  return {
    title: cap(title, 500),
    text,
    lang: htmlEl?.attribs.lang?.trim() || undefined,
    description,
    canonical: (canonicalHref && normalizeUrl(canonicalHref, base)) || undefined,
    links,
    images,
    robots: robotsMeta(doc, options.productToken),
  };
}
