import { execFileSync } from 'node:child_process';

/** The text of a PDF as laid out on its pages, read back with pdftotext (poppler-utils) from standard input. */
export function pdfText(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf, encoding: 'utf8' });
}
