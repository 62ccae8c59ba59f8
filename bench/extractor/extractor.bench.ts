// npm run bench:extractor — the text analysis of the AI data extractor over labelled fictional pages
// (bench/extractor/pages.ts): each page goes through the crawler's HTML extraction and the analyzer,
// alone (no other result to agree with). Prints name precision/recall, flag precision/recall and the
// time per page; once from the pages alone, once with the demo watch-list imported into an in-memory
// database.
import { openDatabase } from '../../server/src/db/database.ts';
import { migrateToLatest } from '../../server/src/db/migrate.ts';
import { extractPage } from '../../server/src/crawler/html-extract.ts';
import type { ResultInput } from '../../server/src/extractor/analysis-types.ts';
import { TextAnalyzer, type WatchlistMatcher } from '../../server/src/extractor/analyzer.ts';
import { isSameName } from '../../server/src/extractor/name-match.ts';
import { importWatchlistFile, DEMO_WATCHLIST_FTM } from '../../server/src/extractor/watchlist-file.ts';
import { AuditRepository } from '../../server/src/repositories/audit.repository.ts';
import { WatchlistRepository } from '../../server/src/repositories/watchlist.repository.ts';
import { WatchlistService } from '../../server/src/services/watchlist.service.ts';
import { PAGES, type LabelledPage } from './pages.ts';

type Flag = 'politician' | 'sanctions' | 'criminal';
const FLAGS: Flag[] = ['politician', 'sanctions', 'criminal'];

function toResult(labelled: LabelledPage): ResultInput {
  const url = `http://bench.example/${labelled.id}`;
  const extracted = extractPage(labelled.html, url);
  const image = extracted.images[labelled.image ?? 0];
  if (!image) throw new Error(`${labelled.id}: no image ${labelled.image ?? 0}`);
  return {
    key: labelled.id,
    page: { url, title: extracted.title, text: extracted.text },
    image: { imageUrl: image.url, alt: image.alt, caption: image.caption, nearbyText: image.nearbyText },
    similarity: 0.9,
    crawledAt: new Date('2024-06-01'),
  };
}

interface Score {
  nameTp: number;
  namePredicted: number;
  nameExpected: number;
  flagTp: number;
  flagFp: number;
  flagFn: number;
  ms: number[];
  misses: string[];
}

async function run(analyzer: TextAnalyzer, withWatchlist: boolean, pages: LabelledPage[]): Promise<Score> {
  const score: Score = {
    nameTp: 0,
    namePredicted: 0,
    nameExpected: 0,
    flagTp: 0,
    flagFp: 0,
    flagFn: 0,
    ms: [],
    misses: [],
  };
  for (const labelled of pages) {
    const result = toResult(labelled);
    const started = performance.now();
    const analysis = await analyzer.analyze([result], []);
    score.ms.push(performance.now() - started);
    const got = analysis.results[0]!;
    if (labelled.name) score.nameExpected++;
    if (got.personName) score.namePredicted++;
    const nameRight = !!labelled.name && !!got.personName && isSameName(got.personName, labelled.name);
    if (nameRight) score.nameTp++;
    else if (labelled.name || got.personName)
      score.misses.push(`${labelled.id}: name "${got.personName}" expected "${labelled.name}"`);
    const expected = new Set<Flag>([
      ...labelled.flags,
      ...(withWatchlist ? (labelled.watchlistFlags ?? []) : []),
    ]);
    for (const flag of FLAGS) {
      const predicted = got[flag];
      if (predicted && expected.has(flag)) score.flagTp++;
      else if (predicted) {
        score.flagFp++;
        const why = got.evidence.find((e) => e.flag === flag)?.text ?? '';
        score.misses.push(`${labelled.id}: unexpected ${flag} (${why})`);
      } else if (expected.has(flag)) {
        score.flagFn++;
        score.misses.push(`${labelled.id}: missed ${flag}`);
      }
    }
  }
  return score;
}

const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
const fmt = (x: number) => x.toFixed(3);

function report(label: string, s: Score, count: number): void {
  const sorted = [...s.ms].sort((a, b) => a - b);
  const mean = s.ms.reduce((a, b) => a + b, 0) / s.ms.length;
  console.log(`\n${label} (${count} pages)`);
  console.log(
    `  names: precision ${fmt(ratio(s.nameTp, s.namePredicted))}  recall ${fmt(ratio(s.nameTp, s.nameExpected))}` +
      `  (${s.nameTp} right of ${s.namePredicted} given, ${s.nameExpected} expected)`,
  );
  console.log(
    `  flags: precision ${fmt(ratio(s.flagTp, s.flagTp + s.flagFp))}  recall ${fmt(ratio(s.flagTp, s.flagTp + s.flagFn))}` +
      `  (${s.flagTp} right, ${s.flagFp} wrong, ${s.flagFn} missed)`,
  );
  console.log(
    `  time: mean ${mean.toFixed(1)} ms/page, p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms`,
  );
  for (const miss of s.misses) console.log(`    ${miss}`);
}

// Warm-up: compromise loads its lexicon on first use.
await new TextAnalyzer().analyze([toResult(PAGES[0]!)], []);
const tuned = PAGES.filter((p) => !p.heldOut);
const heldOut = PAGES.filter((p) => p.heldOut);
report('Pages alone, all', await run(new TextAnalyzer(), false, PAGES), PAGES.length);
report('Pages alone, held-out only', await run(new TextAnalyzer(), false, heldOut), heldOut.length);
report('Pages alone, tuned-on only', await run(new TextAnalyzer(), false, tuned), tuned.length);

const database = await openDatabase({ dataDir: ':memory:' });
try {
  await migrateToLatest(database.db);
  const watchlists = new WatchlistService(
    new WatchlistRepository(database.db),
    new AuditRepository(database.db),
  );
  await importWatchlistFile(watchlists, DEMO_WATCHLIST_FTM, 'demo');
  const matcher: WatchlistMatcher = watchlists;
  report(
    'Pages and the demo watch-list, all',
    await run(new TextAnalyzer({ watchlists: matcher }), true, PAGES),
    PAGES.length,
  );
} finally {
  await database.close();
}
