import { describe, expect, it } from 'vitest';
import { displayRuns, isolated, paragraphDirection } from '../../src/reports/pdf-text.ts';

// Runs come in display order, left to right on the page.
const texts = (text: string) => displayRuns(text).map((run) => run.text);

describe('displayRuns: the direction of a paragraph is that of its first letter', () => {
  it('keeps a Latin-led paragraph left to right, its Arabic words as one right-to-left run', () => {
    const runs = displayRuns('Case: محمد حسن');
    expect(runs.map((run) => run.text)).toEqual(['Case: ', 'محمد حسن']);
    expect(runs.map((run) => run.level)).toEqual([0, 1]);
  });

  it('lays an Arabic-led name out from the right: its first words end up rightmost, the Chinese inside', () => {
    const runs = texts('المشتبه به أحمد 王伟 ملف');
    // Read from the right: "المشتبه به أحمد", then "王伟", then "ملف".
    expect(runs.at(-1)).toContain('المشتبه');
    expect(runs.findIndex((text) => text.includes('王伟'))).toBeLessThan(runs.length - 1);
    expect(runs[0]).toContain('ملف');
  });

  it('reads a Hebrew-led paragraph with a number right to left as well', () => {
    const runs = texts('תיק 42 של דוד');
    expect(runs.at(-1)).toContain('תיק');
    expect(runs[0]).toContain('דוד');
  });

  it('keeps a longer paragraph, which may wrap, left to right: its words never move to the end of a line', () => {
    const text = 'الجزء الأول من الوصف Alpha Corp الجزء الثاني Beta Ltd الجزء الأخير';
    expect(text.length).toBeGreaterThan(40);
    const runs = texts(text);
    expect(runs[0]).toContain('الجزء الأول');
    expect(runs.at(-1)).toContain('الجزء الأخير');
  });
});

describe('paragraphDirection: the first letter with a direction decides, outside isolates', () => {
  it('reads Arabic- and Hebrew-led paragraphs right to left, Latin-led and letterless ones left to right', () => {
    expect(paragraphDirection('أعلنت شركة Google اليوم')).toBe('rtl');
    expect(paragraphDirection('42 · תיק של דוד')).toBe('rtl');
    expect(paragraphDirection('Google أعلنت')).toBe('ltr');
    expect(paragraphDirection('2024 – 2025')).toBe('ltr');
  });

  it('skips an isolated quotation: "• Page: " and an Arabic sentence is a left-to-right line', () => {
    expect(paragraphDirection(`• ${isolated('قال المتحدث')} Page`)).toBe('ltr');
    expect(paragraphDirection(`${isolated('Google')} أعلنت`)).toBe('rtl');
  });
});

describe('displayRuns: emoji', () => {
  it('keeps an emoji sequence joined by zero-width joiners, with its skin tone, in one run', () => {
    const runs = displayRuns('Ann 👩‍💻 and 👍🏽 Lee');
    expect(runs.map((run) => run.text)).toEqual(['Ann ', '👩‍💻', ' and ', '👍🏽', ' Lee']);
    expect(runs.map((run) => run.family.name)).toEqual(['sans', 'emoji', 'sans', 'emoji', 'sans']);
  });
});
