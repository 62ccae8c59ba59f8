import { spawnSync } from 'node:child_process';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { loadConfig } from '../../src/config.ts';
import { renderExtractionReport, type ExtractionReportData } from '../../src/reports/extraction-report.ts';
import { renderProformaInvoice, type InvoiceOrder } from '../../src/reports/invoice-pdf.ts';
import {
  renderSavedSearchReport,
  type SavedSearchReportData,
} from '../../src/reports/saved-search-report.ts';
import { describe, expect, it } from 'vitest';

// Issue 14 item 14: "Владимир Иванов שלום" printed "???????? ?????? ????" in the extraction report and an
// invoice buyer "… 日本 שלום" printed mojibake. Each PDF is generated with names in Latin, Cyrillic, Greek,
// Hebrew, Arabic, CJK and Devanagari and read back with pdftotext: the names must come back as written.
// pdftotext prints right-to-left runs in reading (logical) order between U+202B and U+202C marks, which the
// comparison leaves out.

const NAMES = {
  cyrillicHebrew: 'Владимир Иванов שלום',
  hebrew: 'שלום עולם',
  // Without the ligature of "الله": pdftotext spells a ligature glyph's letters backwards in right-to-left text.
  arabic: 'محمد حسن',
  greek: 'Γιώργος Παπαδόπουλος',
  devanagari: 'राम कुमार',
  chineseJapanese: '山田太郎 さくら',
  korean: '김민준',
  thai: 'สมชาย ใจดี',
  georgian: 'ნიკოლოზ ბასილაშვილი',
  armenian: 'Արամ Խաչատրյան',
  bengali: 'রবীন্দ্রনাথ ঠাকুর',
  // Without a vowel sign drawn before its consonant (as in "வே"): pdftotext gives such glyphs in drawing
  // order, so the copied text has the sign first although the page shows the name right.
  tamil: 'கருணாநிதி',
  latin: 'Jane Doe',
};

function pdfText(pdf: Buffer): string {
  const result = spawnSync('/usr/bin/pdftotext', ['-', '-'], { input: pdf });
  if (result.status !== 0) throw new Error(`pdftotext failed: ${result.stderr.toString()}`);
  return result.stdout
    .toString('utf8')
    .replace(/[\u202a-\u202e]/g, '')
    .replace(/\s+/g, ' ');
}

interface Word {
  word: string;
  xMin: number;
  xMax: number;
  yMin: number;
}

/**
 * The words of a page as pdftotext -bbox places them, grouped into lines (words whose tops are within 4
 * points: runs of several fonts share a baseline, not a top), top to bottom.
 */
function wordLines(pdf: Buffer, page: number): Word[][] {
  const result = spawnSync(
    '/usr/bin/pdftotext',
    ['-f', String(page), '-l', String(page), '-bbox', '-', '-'],
    {
      input: pdf,
    },
  );
  if (result.status !== 0) throw new Error(`pdftotext failed: ${result.stderr.toString()}`);
  const words = [
    ...result.stdout
      .toString('utf8')
      .matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g),
  ].map((m) => ({ xMin: Number(m[1]), yMin: Number(m[2]), xMax: Number(m[3]), word: m[4]! }));
  const lines: Word[][] = [];
  for (const word of [...words].sort((a, b) => a.yMin - b.yMin)) {
    const line = lines.find((l) => Math.abs(l[0]!.yMin - word.yMin) < 4);
    if (line) line.push(word);
    else lines.push([word]);
  }
  return lines;
}

/** A word as -bbox spells it: its letters in drawing order, left to right (Arabic and Hebrew reversed). */
function drawnForm(word: string): string {
  return /[\p{Script=Arabic}\p{Script=Hebrew}]/u.test(word) ? [...word].reverse().join('') : word;
}

/** The embedded fonts' names without their subset prefix ("ABCDEF+NotoSans-Bold" → "NotoSans-Bold"). */
function embeddedFonts(pdf: Buffer): string[] {
  const result = spawnSync('/usr/bin/pdffonts', ['-'], { input: pdf });
  if (result.status !== 0) throw new Error(`pdffonts failed: ${result.stderr.toString()}`);
  return result.stdout
    .toString('utf8')
    .split('\n')
    .slice(2)
    .map((line) => line.split(/\s+/)[0]!.replace(/^[A-Z]{6}\+/, ''))
    .filter(Boolean);
}

function extraction(names: string[]): ExtractionReportData {
  return {
    organizationName: 'Harbour Police Department',
    preparedBy: 'analyst@harbour.test',
    generatedAt: new Date('2026-03-01T10:00:00Z'),
    restricted: false,
    extraction: {
      name: `Extraction ${names[0]}`,
      description: `Who is ${names[0]}?`,
      createdAt: new Date('2026-02-28T10:00:00Z'),
      image: null,
      resultCount: names.length,
      bestName: names[0] ?? null,
    },
    names: names.map((name) => ({
      name,
      linkCount: 1,
      politicianCount: 0,
      sanctionsCount: 0,
      criminalCount: 0,
      seenWithCount: 0,
      evidence: [],
      seenWith: [],
    })),
    results: names.map((name) => ({
      personName: name,
      personDesc: `${name} at a press conference`,
      politician: false,
      sanctions: false,
      criminal: false,
      similarity: 0.72,
      scoreModel: SHIPPED_SCORE_MODEL,
      crawledAt: new Date('2026-01-15T00:00:00Z'),
      sourceTitle: `News about ${name}`,
      sourceUrl: 'https://news.example/article',
      imageUrl: 'https://news.example/photo.jpg',
      thumbnail: null,
      face: null,
      evidence: [],
      seenWith: [],
    })),
    wikipedia: null,
  };
}

function savedSearch(titles: string[]): SavedSearchReportData {
  return {
    organizationName: 'Harbour Police Department',
    preparedBy: 'analyst@harbour.test',
    generatedAt: new Date('2026-03-01T10:00:00Z'),
    savedSearch: {
      saved: true,
      name: titles[0]!,
      description: '',
      type: 'OSINT',
      createdAt: new Date('2026-02-28T10:00:00Z'),
      image: Buffer.alloc(0),
      resultCount: titles.length,
    },
    restricted: false,
    results: titles.map((sourceTitle) => ({
      similarity: 0.7,
      scoreModel: SHIPPED_SCORE_MODEL,
      crawledAt: new Date('2026-01-15T00:00:00Z'),
      sourceTitle,
      imageUrl: 'https://news.example/photo.jpg',
      sourceUrl: 'https://news.example/article',
      thumbnail: null,
      face: null,
    })),
  };
}

function invoice(buyerName: string): InvoiceOrder {
  return {
    orderNumber: 'ORD-1',
    invoiceNumber: 'PF-2026-0001',
    issuedAt: new Date('2026-03-01T10:00:00Z'),
    startDate: '2026-03-01',
    endDate: '2026-04-01',
    months: 1,
    seats: 1,
    basePrice: 1000,
    additionalUserFee: 0,
    amount: 1000,
    currency: 'USD',
    buyer: {
      name: buyerName,
      street: 'רחוב הרצל 1',
      cityPostcode: '100-0001',
      city: '東京',
      country: 'Japan',
    },
  };
}

describe('non-Latin text in PDFs (issue 14 item 14)', () => {
  it('the extraction report prints names in every script as written', async () => {
    const pdf = await renderExtractionReport(extraction(Object.values(NAMES)));
    const text = pdfText(pdf);
    for (const name of Object.values(NAMES)) expect(text).toContain(name);
    expect(text).not.toContain('????');
  });

  it('the saved-search report prints page titles and its name in every script as written', async () => {
    const pdf = await renderSavedSearchReport(savedSearch(Object.values(NAMES)));
    const text = pdfText(pdf);
    for (const name of Object.values(NAMES)) expect(text).toContain(name);
  });

  it('the proforma invoice prints a buyer "… 日本 שלום" and a Hebrew street as written', async () => {
    const pdf = await renderProformaInvoice(invoice('Tokyo Trading 日本 שלום'), loadConfig({}).billing);
    const text = pdfText(pdf);
    expect(text).toContain('Tokyo Trading 日本 שלום');
    expect(text).toContain('רחוב הרצל 1');
    expect(text).toContain('東京');
  });

  it('the invoice starts each block below the one above, however long the purchase order and the buyer’s lines', async () => {
    const order = invoice(`Департамент полиции гавани ${'Северный округ '.repeat(12)}`.slice(0, 200));
    order.buyer.street = `شارع الملك فهد ${'مبنى المكاتب الحكومية '.repeat(8)}`.slice(0, 200);
    order.purchaseOrder = `PO ${'港口警察 '.repeat(40)}`.slice(0, 200) + ' ENDPO';
    const pdf = await renderProformaInvoice(order, loadConfig({}).billing);
    const words = wordLines(pdf, 1).flat();
    const at = (word: string) => words.find((w) => w.word === word)!;
    const yMax = (word: Word) => word.yMin + 12;
    expect(at('SELLER').yMin).toBeGreaterThan(yMax(at('ENDPO')));
    expect(at('Plan').yMin).toBeGreaterThan(yMax(at('Japan')));
  });

  it('a result with a long image address is not cut between pages: its links stay with its title', async () => {
    const longUrl = `https://scontent.example.net/v/t39.30808-6/${'a1b2c3d4e5f6'.repeat(60)}.jpg?stp=dst-jpg&end=ENDURL`;
    // Enough results for one of the entries to meet the bottom of a page, wherever it falls.
    for (let count = 3; count <= 12; count++) {
      const data = savedSearch(Array.from({ length: count }, (_, i) => `Title-${i + 1}-end`));
      data.savedSearch.name = 'Long addresses';
      data.results = data.results.map((result) => ({ ...result, imageUrl: longUrl }));
      const pages = spawnSync('/usr/bin/pdftotext', ['-', '-'], {
        input: await renderSavedSearchReport(data),
      })
        .stdout.toString('utf8')
        .split('\f');
      // Every page ends as many image addresses as it starts entries.
      for (const [n, page] of pages.entries()) {
        const entries = page.match(/Title-\d+-end/g)?.length ?? 0;
        expect(page.match(/ENDURL/g)?.length ?? 0, `${count} results, page ${n + 1}`).toBe(entries);
      }
    }
  });

  it('a cover with a long description keeps the face and its facts together, each fact beside its value', async () => {
    const data = savedSearch(['Title-1-end']);
    data.savedSearch = {
      ...data.savedSearch,
      resultCount: 3,
      addedFaceCount: 2,
      otherFaceCount: 1,
      description: Array.from(
        { length: 27 },
        (_, i) => `Sighting ${i + 1}: border crossing, grey sedan`,
      ).join('\n'),
    };
    const pages = spawnSync('/usr/bin/pdftotext', ['-layout', '-', '-'], {
      input: await renderSavedSearchReport(data),
    })
      .stdout.toString('utf8')
      .split('\f');
    const factsPage = pages.find((page) => /results in this report/i.test(page))!;
    expect(factsPage).toMatch(/results in this report\s+1 of 3/i);
  });

  it('an invoice with every buyer field at its longest breaks between rows, never between a label and its value', async () => {
    const order = invoice(`Департамент полиции гавани ${'Северный округ '.repeat(20)}`.slice(0, 200));
    order.buyer.street = `شارع الملك فهد ${'مبنى المكاتب الحكومية '.repeat(12)}`.slice(0, 200);
    order.buyer.city = 'Springfield '.repeat(20).slice(0, 200);
    order.buyer.country = 'United Kingdom of Great Britain '.repeat(8).slice(0, 200);
    order.purchaseOrder = `PO ${'港口警察 '.repeat(40)}`.slice(0, 100);
    const pdf = await renderProformaInvoice(order, loadConfig({}).billing);
    const pages = spawnSync('/usr/bin/pdftotext', ['-layout', '-', '-'], { input: pdf })
      .stdout.toString('utf8')
      .split('\f')
      .filter((page) => page.trim());
    expect(pages.length).toBeLessThanOrEqual(2);
    // Each label on the page of its value.
    for (const [label, value] of [
      ['Total (USD)', '$1,000 USD'],
      ['Amount', '$1,000 USD'],
      ['Account name', loadConfig({}).billing.bank.accountName],
    ] as const) {
      const page = pages.find((text) => text.includes(label))!;
      expect(page, label).toContain(value);
    }
  });

  it('a report made after another gives its Arabic words back whole when copied or searched (its own text layer)', async () => {
    const sentence = 'قال المتحدث إن شركة Google ستشارك في المشروع';
    const evidenceReport = () => {
      const data = extraction([NAMES.latin]);
      data.results[0] = {
        ...data.results[0]!,
        politician: true,
        evidence: [{ flag: 'politician', source: 'page', text: sentence, url: null }],
      };
      return renderExtractionReport(data);
    };
    const order = invoice('Buyer');
    order.buyer.street = `شارع الملك فهد ${'مبنى المكاتب الحكومية '.repeat(8)}`.slice(0, 200);
    await renderProformaInvoice(order, loadConfig({}).billing);
    const text = pdfText(await evidenceReport());
    for (const word of sentence.split(' ')) expect(text).toContain(word);
  });

  it('right-to-left text is laid out from the right: the first word of "שלום עולם" is drawn right of the second', async () => {
    const pdf = await renderExtractionReport(extraction([NAMES.hebrew]));
    // -bbox gives each word with its position on the page, its letters in drawing order (left to right).
    const result = spawnSync('/usr/bin/pdftotext', ['-bbox', '-', '-'], { input: pdf });
    const words = [
      ...result.stdout.toString('utf8').matchAll(/<word xMin="([\d.]+)"[^>]*>([^<]*)<\/word>/g),
    ].map((match) => ({ x: Number(match[1]), word: match[2]! }));
    const drawn = (word: string) => [...word].reverse().join('');
    const first = words.find((w) => w.word === drawn('שלום'));
    const second = words.find((w) => w.word === drawn('עולם'));
    expect(first && second).toBeTruthy();
    expect(first!.x).toBeGreaterThan(second!.x);
  });

  it('a wrapped right-to-left paragraph reads from the right on every line: an Arabic title with "Google" in it', async () => {
    // Without a lam-alef ligature, which pdftotext spells in another order (see NAMES.arabic).
    const title = 'أعلنت شركة Google اليوم عن خدمة جديدة للبحث في الصور والوجوه على الشبكة العالمية';
    const data = extraction([NAMES.latin]);
    data.extraction.name = title;
    const lines = wordLines(await renderExtractionReport(data), 1);
    const titleWords = title.split(' ');
    const drawn = new Map(titleWords.map((word) => [drawnForm(word), word]));
    const titleLines = lines.filter((line) => line.every((w) => drawn.has(w.word)));
    // The cover's title (24 points) wraps.
    expect(titleLines.length).toBeGreaterThanOrEqual(2);
    // Each line read from its right edge to its left, the lines from the top: the title as written.
    const read = titleLines.flatMap((line) =>
      [...line].sort((a, b) => b.xMin - a.xMin).map((w) => drawn.get(w.word)),
    );
    expect(read).toEqual(titleWords);
    // The first word in reading order is the rightmost of the first line (and "Google" stays inside).
    const first = titleLines[0]!;
    expect(Math.max(...first.map((w) => w.xMax))).toBe(
      first.find((w) => w.word === drawnForm('أعلنت'))!.xMax,
    );
    expect(first.some((w) => w.word === 'Google')).toBe(true);
  });

  it('Arabic-Indic and Persian digits print in their own order, left to right, in Arabic and in Latin text', async () => {
    const names = ['قضية رقم ٢٠٢٦ ١٢٣٤٥', 'Case ۱۴۰۳'];
    const text = pdfText(await renderExtractionReport(extraction(names)));
    expect(text).toContain('٢٠٢٦');
    expect(text).toContain('١٢٣٤٥');
    expect(text).toContain('Case ۱۴۰۳');
    expect(text).not.toContain('٥٤٣٢١');
  });

  it('a result title keeps its number at the left of a Hebrew or Arabic name', async () => {
    const pdf = await renderExtractionReport(extraction([NAMES.latin, NAMES.hebrew, NAMES.arabic]));
    const pages = Number(
      /Pages:\s+(\d+)/.exec(spawnSync('/usr/bin/pdfinfo', ['-'], { input: pdf }).stdout.toString())![1],
    );
    const lines = Array.from({ length: pages }, (_, i) => wordLines(pdf, i + 1)).flat();
    for (const [number, name] of [
      ['2.', NAMES.hebrew],
      ['3.', NAMES.arabic],
    ] as const) {
      const nameWords = new Set(name.split(' ').map(drawnForm));
      const line = lines.find(
        (l) => l.some((w) => w.word === number) && l.some((w) => nameWords.has(w.word)),
      );
      expect(line, number).toBeDefined();
      const numberAt = line!.find((w) => w.word === number)!.xMax;
      expect(Math.min(...line!.filter((w) => nameWords.has(w.word)).map((w) => w.xMin))).toBeGreaterThan(
        numberAt,
      );
    }
  });

  it('an Arabic evidence sentence keeps its own order after "• Page:", a Latin name inside it', async () => {
    const sentence = 'قال المتحدث إن شركة Google ستشارك في المشروع';
    const data = extraction([NAMES.latin]);
    data.results[0] = {
      ...data.results[0]!,
      politician: true,
      evidence: [{ flag: 'politician', source: 'page', text: sentence, url: null }],
    };
    const pdf = await renderExtractionReport(data);
    const words = sentence.split(' ');
    const drawn = new Map(words.map((word) => [drawnForm(word), word]));
    const line = wordLines(pdf, 3).find((l) => l.some((w) => w.word === 'Page:'))!;
    const quoted = line.filter((w) => drawn.has(w.word)).sort((a, b) => b.xMin - a.xMin);
    // Read from its right edge, as on screen in its <bdi>; the label stays at the left.
    expect(quoted.map((w) => drawn.get(w.word))).toEqual(words);
    expect(line.find((w) => w.word === 'Page:')!.xMax).toBeLessThan(Math.min(...quoted.map((w) => w.xMin)));
  });

  it('each run gets its own font: a Latin-only report embeds Noto Sans alone, a CJK name adds a small subset', async () => {
    const latinPdf = await renderExtractionReport(extraction([NAMES.latin]));
    expect(new Set(embeddedFonts(latinPdf))).toEqual(new Set(['NotoSans-Bold', 'NotoSans-Regular']));

    const mixedPdf = await renderExtractionReport(
      extraction([NAMES.latin, NAMES.chineseJapanese, NAMES.hebrew]),
    );
    const fonts = embeddedFonts(mixedPdf);
    expect(fonts).toContain('NotoSansHans-Bold');
    expect(fonts).toContain('NotoSansHebrew-Bold');
    // The Latin name is still printed in Noto Sans (the only font of the Latin-only report) and the CJK font
    // file is 8 MB: only the glyphs used are embedded.
    expect(mixedPdf.length - latinPdf.length).toBeLessThan(150_000);
  });

  it('Thai, Georgian, Armenian, Bengali and Tamil names and emoji get fonts of their own, not empty boxes', async () => {
    const pdf = await renderExtractionReport(
      extraction([NAMES.thai, NAMES.georgian, NAMES.armenian, NAMES.bengali, NAMES.tamil, 'Jane 🎉 Doe']),
    );
    const fonts = new Set(embeddedFonts(pdf));
    for (const font of ['Thai', 'Georgian', 'Armenian', 'Bengali', 'Tamil'])
      expect(fonts).toContain(`NotoSans${font}-Bold`);
    expect(fonts).toContain('NotoEmoji-Bold');
    expect(pdfText(pdf)).toContain('Jane 🎉 Doe');
    // The space after the emoji is the text font's: the emoji font's own space is four times as wide.
    const line = wordLines(pdf, 2).find((words) => words.some((w) => w.word === '🎉'))!;
    const [emoji, doe] = [line.find((w) => w.word === '🎉')!, line.find((w) => w.word === 'Doe')!];
    expect(doe.xMin - emoji.xMax).toBeLessThan(5);
  });
});
