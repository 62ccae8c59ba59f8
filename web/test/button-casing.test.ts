import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

// Issue 15 item 5: one casing of buttons. Button labels the specification gives are kept word for word,
// whatever their casing; every other label is in sentence case ("Show more results", "Upgrade now").

/**
 * The specification's button labels that are not in sentence case (spec 000 §3, §6; 001 §2, §3, §6), with
 * the files of the places the specification gives them for (none: wherever that button appears). The
 * same words elsewhere ("SHOW MORE" under extracted results, "UPGRADE NOW" on the trial panel) are not
 * spec texts and follow the rule.
 */
const SPEC_LABELS: Record<string, string[] | null> = {
  'SHOW MORE': ['components/item-list.tsx'],
  'UPGRADE NOW': ['components/access-restricted-modal.tsx'],
  'BACK TO SEARCH': ['components/access-restricted-modal.tsx'],
  // The expired notice, wherever it shows (spec 001 §6).
  'RENEW YOUR PLAN': null,
  'GENERATE REPORT': [
    'features/saved-searches/saved-results-view.tsx',
    'features/data-extractor/extraction-detail.tsx',
  ],
  'Select All': [
    'features/saved-searches/saved-results-view.tsx',
    'features/data-extractor/extraction-detail.tsx',
  ],
  REMOVE: ['features/search/upload-area.tsx'],
  'Save New Password': null,
  'Delete Account': null,
  'Subscribe Now!': null,
  'Buy Now!': null,
  'Social Media Search': null,
  'Contact Support': null,
};

function isSpecLabel(label: string, where: string): boolean {
  return Object.entries(SPEC_LABELS).some(
    ([spec, files]) => label.startsWith(spec) && (files === null || files.includes(where)),
  );
}

/** Names of the product's pages as the specification writes them: a label that names a page keeps them. */
const PAGE_NAMES = ['Saved Searches', 'AI Data Extractor'];

const WEB_SRC = path.resolve(import.meta.dirname, '../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.tsx') ? [file] : [];
  });
}

/** The literal labels of buttons and of links drawn as buttons, with where they are. */
function buttonLabels(): Array<{ where: string; label: string }> {
  const found: Array<{ where: string; label: string }> = [];
  const element =
    /<(Button|button)\b(?:[^>{]|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})*>([\s\S]*?)<\/\1>|<Link\s+className="btn[^"]*"[^>]*>([\s\S]*?)<\/Link>/g;
  for (const file of sourceFiles(WEB_SRC)) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(element)) {
      // Each run of literal text on its own (a choice button holds a title and a description); labels made
      // of expressions come from messages checked elsewhere.
      const texts = (match[2] ?? match[3] ?? '').replace(/\{[^}]*\}/g, '<>').split(/<[^>]*>/);
      for (const text of texts) {
        const label = text
          .replace(/\s+/g, ' ')
          .replace(/^[^A-Za-z]+/, '')
          .trim();
        if (/[A-Za-z]{2}/.test(label)) found.push({ where: path.relative(WEB_SRC, file), label });
      }
    }
  }
  return found;
}

const ACRONYM = /^[A-Z]{2,3}\b/;

/** Sentence case: no word after the first starts with a capital, unless it is an acronym (PDF, CSV, OK). */
function isSentenceCase(label: string): boolean {
  const text = PAGE_NAMES.reduce((rest, name) => rest.replace(name, 'page'), label);
  const [first = '', ...others] = text.split(' ');
  const firstOk = !/^[A-Z]{2,}/.test(first) || ACRONYM.test(first);
  // A capital may open a new sentence (the description of a choice button).
  const words = [first, ...others];
  return (
    firstOk &&
    others.every((word, i) => !/^[A-Z]/.test(word) || ACRONYM.test(word) || /[.!?]$/.test(words[i]!))
  );
}

describe('button casing', () => {
  test('every button label is a spec label or in sentence case', () => {
    const labels = buttonLabels();
    expect(labels.length).toBeGreaterThan(80);
    const offenders = labels.filter(
      ({ label, where }) => !isSentenceCase(label) && !isSpecLabel(label, where),
    );
    expect(offenders).toEqual([]);
  });
});
