import { describe, expect, it } from 'vitest';
import {
  bestNameScore,
  isSameName,
  NAME_MATCH_THRESHOLD,
  nameKeys,
  nameSimilarity,
  nameTokens,
  normaliseName,
} from '../../src/extractor/name-match.ts';

describe('name normalisation', () => {
  it('folds case, accents, punctuation and honorifics', () => {
    expect(normaliseName('Dr. José  ÁLVAREZ-Núñez')).toBe('jose alvarez nunez');
    expect(nameTokens('Minister Amelia Okafor MP')).toEqual(['amelia', 'okafor']);
    expect(normaliseName('Søren Ødegaard')).toBe('soren odegaard');
    expect(normaliseName("Mr O'Neill")).toBe('oneill');
    expect(nameTokens('Minister')).toEqual([]);
  });

  it('gives lookup keys: tokens and their four-letter prefixes', () => {
    expect(nameKeys(['Viktor Draganov', 'V. Draganoff'])).toEqual(
      expect.arrayContaining(['viktor', 'vikt*', 'draganov', 'drag*', 'draganoff']),
    );
    expect(nameKeys(['V. Draganoff'])).not.toContain('v');
  });
});

describe('name similarity', () => {
  const same: [string, string][] = [
    ['John Smith', 'Smith John'],
    ['J. Smith', 'John Smith'],
    ['Jon Smith', 'John Smith'],
    ['Victor Draganov', 'Viktor Draganov'],
    ['Viktor Draganoff', 'Viktor Draganov'],
    ['John Michael Smith', 'John Smith'],
    ['HELENA MARSH', 'Mayor Helena Marsh'],
    ['Jose Alvarez Nunez', 'José Álvarez-Núñez'],
    ['Amelia N. Okafor', 'Amelia Okafor'],
  ];
  const different: [string, string][] = [
    ['Jane Smith', 'John Smith'],
    ['Smith', 'John Smith'],
    ['Grace Okafor', 'Amelia Okafor'],
    ['Marco Bellini', 'Marco Vellini'],
    ['Jo Whitcombe', 'Jo Whitfield'],
    ['J. S.', 'John Smith'],
    ['Helena Marsh', 'Carla Mendes'],
    // A man and a woman of one family, or another short name, are other people across pages too.
    ['Mario Rossi', 'Maria Rossi'],
    ['Jan Novotny', 'Jan Novotna'],
    ['Joan Smith', 'John Smith'],
    ['Mark Ellis', 'Mary Ellis'],
  ];

  it.each(same)('%s ~ %s', (a, b) => {
    expect(nameSimilarity(a, b)).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
    expect(isSameName(b, a)).toBe(true);
  });

  it.each(different)('%s ≁ %s', (a, b) => {
    expect(nameSimilarity(a, b)).toBeLessThan(NAME_MATCH_THRESHOLD);
  });

  it('compares names across Cyrillic, Greek and Latin spellings', () => {
    expect(nameTokens('Владимир Путин')).toEqual(['vladimir', 'putin']);
    expect(nameTokens('Дмитрий Медведев')).toEqual(['dmitry', 'medvedev']);
    expect(nameTokens('Володимир Зеленський')).toEqual(['volodimir', 'zelensky']);
    expect(nameTokens('Андрій Єрмак')).toEqual(['andriy', 'yermak']);
    expect(nameTokens('Γιώργος Παπαδόπουλος')).toEqual(['giorgos', 'papadopoulos']);
    for (const [a, b] of [
      ['Владимир Путин', 'Vladimir Putin'],
      ['Дмитрий Медведев', 'Dmitry Medvedev'],
      ['Володимир Зеленський', 'Volodymyr Zelensky'],
      ['Виктор Драганов', 'Viktor Draganov'],
      ['Γιώργος Παπαδόπουλος', 'Giorgos Papadopoulos'],
    ]) {
      expect(bestNameScore(a!, [b!], 'watchlist'), `${a} ~ ${b}`).toBeGreaterThanOrEqual(
        NAME_MATCH_THRESHOLD,
      );
    }
    expect(nameSimilarity('Владимир Путин', 'Vladimir Popov')).toBeLessThan(NAME_MATCH_THRESHOLD);
    // е and ё written "ye"/"yo" or not, Ukrainian г as "h" and и as "y", against a watch-list too.
    for (const [a, b] of [
      ['Евгений Пригожин', 'Yevgeny Prigozhin'],
      ['Евгений Пригожин', 'Evgeny Prigozhin'],
      ['Yelena Ivanova', 'Elena Ivanova'],
      ['Шавкат Мирзиёев', 'Shavkat Mirziyoyev'],
      ['Григорій Суркіс', 'Hryhoriy Surkis'],
      ['Сергій Лещенко', 'Serhiy Leshchenko'],
      ['Ольга Стефанішина', 'Olha Stefanishyna'],
    ])
      expect(bestNameScore(a!, [b!], 'watchlist'), `${a} ~ ${b}`).toBeGreaterThanOrEqual(
        NAME_MATCH_THRESHOLD,
      );
    expect(nameTokens('Григорий Явлинский')).toEqual(['grigory', 'yavlinsky']);
    // Lookup keys are Latin too: a Cyrillic name finds an entry spelled in Latin.
    expect(nameKeys(['Виктор Драганов'])).toEqual(nameKeys(['Viktor Draganov']));
  });

  it('against a watch-list, the feminine and masculine forms of a name are different people', () => {
    const asWatchlist = (a: string, b: string) => bestNameScore(a, [b], 'watchlist');
    for (const [a, b] of [
      ['Maria Rossi', 'Mario Rossi'],
      ['Daniela Conti', 'Daniele Conti'],
      ['Anna Ivanova', 'Anna Ivanov'],
      ['Aleksandra Petrova', 'Aleksandr Petrov'],
      ['Мария Иванова', 'Mariya Ivanov'],
      ['Anna Kowalska', 'Anna Kowalski'],
      ['Jana Novak', 'Jan Novak'],
      ['Marie Laurent', 'Mario Laurent'],
      ['Julie Moreau', 'Julio Moreau'],
      ['Valerie Costa', 'Valerio Costa'],
      ['Emilie Roux', 'Emilio Roux'],
      ['Andrea Popescu', 'Andrei Popescu'],
      ['Anna Kowalska', 'Anna Kowalsky'],
      ['Eva Novotna', 'Eva Novotny'],
      ['Petra Novakova', 'Petra Novak'],
      ['Jana Cerna', 'Jana Cerny'],
      ['Danielle Smith', 'Daniel Smith'],
      ['Gabrielle Attal', 'Gabriel Attal'],
      ['Alexandra Stone', 'Alexander Stone'],
      ['Christina Berg', 'Christian Berg'],
      ['Louise Martin', 'Louis Martin'],
      ['Denise Roy', 'Denis Roy'],
      ['Justine Henin', 'Justin Henin'],
      ['Frances Hale', 'Francis Hale'],
      ['Jeanne Moreau', 'Jean Moreau'],
      ['Yevgeniya Shevchenko', 'Yevgeniy Shevchenko'],
    ]) {
      expect(asWatchlist(a!, b!), `${a} ≁ ${b}`).toBeLessThan(NAME_MATCH_THRESHOLD);
    }
    // Spelling variants that do not change the ending's vowel still match.
    for (const [a, b] of [
      ['Victor Draganov', 'Viktor Draganov'],
      ['Volodymyr Zelenskyy', 'Volodymyr Zelensky'],
      ['Dmitri Medvedev', 'Dmitry Medvedev'],
      // Endings that spell one name several ways, not a woman's and a man's.
      ['Dmitri Medvedev', 'Dmitrii Medvedev'],
      ['Yuri Gagarin', 'Yurii Gagarin'],
      ['Anatoli Karpov', 'Anatolii Karpov'],
      ['Elena Papadopoulou', 'Eleni Papadopoulou'],
      ['Marie Dubois', 'Maria Dubois'],
      ['Yulia Tymoshenko', 'Yulia Tymoshenka'],
      ['Christine Lagarde', 'Christina Lagarde'],
      // A final y against a is a spelling, not a Czech or Slovak adjective surname, here.
      ['Mary Jones', 'Mara Jones'],
      ['Grzegorz Schetyna', 'Grzegorz Schetyny'],
      ['Sergey Lavrov', 'Sergei Lavrov'],
    ]) {
      expect(asWatchlist(a!, b!), `${a} ~ ${b}`).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
    }
    // Across an extraction's pages they are two people too: merged, their votes would make one name.
    expect(bestNameScore('Maria Rossi', ['Mario Rossi'])).toBeLessThan(NAME_MATCH_THRESHOLD);
  });

  it('writes x as ks for Russian and Greek transliterations, without making short names alike', () => {
    const asWatchlist = (a: string, b: string) => bestNameScore(a, [b], 'watchlist');
    for (const [a, b] of [
      ['Alexander Petrov', 'Aleksandr Petrov'],
      ['Maxim Orlov', 'Maksim Orlov'],
      ['Xenia Sobol', 'Ksenia Sobol'],
    ])
      expect(asWatchlist(a!, b!), `${a} ~ ${b}`).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
    for (const [a, b] of [
      ['Max Smith', 'Mak Smith'],
      ['Les Paul', 'Lex Paul'],
      ['Timothy Rex', 'Timothy Rek'],
    ])
      expect(asWatchlist(a!, b!), `${a} ≁ ${b}`).toBeLessThan(NAME_MATCH_THRESHOLD);
  });

  it('keeps the voicing marks of kana: バイデン is not ハイデン', () => {
    expect(bestNameScore('ハイデン', ['バイデン'], 'watchlist')).toBeLessThan(NAME_MATCH_THRESHOLD);
    expect(nameTokens('バイデン')).toEqual(['バイデン']);
    expect(bestNameScore('プーチン', ['プーチン'], 'watchlist')).toBe(1);
  });

  it('keeps an initial of a letter spelled with several Latin letters an initial (Ю., Щ., Θ.)', () => {
    expect(nameTokens('Ю. Андропов')).toEqual(['y', 'andropov']);
    expect(nameTokens('Щ. Иванов')).toEqual(['s', 'ivanov']);
    expect(nameTokens('Θ. Αγγελόπουλος')).toEqual(['t', 'angelopoulos']);
    // Merged as the variants of one name, as "J. Smith" and "John Smith" are; a watch-list match does not
    // rest on an initial.
    expect(bestNameScore('Ю. Андропов', ['Юрий Андропов'])).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
    expect(bestNameScore('Ю. Андропов', ['Yuri Andropov'])).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
    expect(bestNameScore('Ю. Андропов', ['Yuri Andropov'], 'watchlist')).toBeLessThan(NAME_MATCH_THRESHOLD);
    // Words spelled out are unchanged.
    expect(nameTokens('Юрий Щербаков')).toEqual(['yury', 'shcherbakov']);
  });

  it('takes a short name with a letter changed for one that does not sound alike for another name', () => {
    const asWatchlist = (a: string, b: string) => bestNameScore(a, [b], 'watchlist');
    for (const [a, b] of [
      ['Joan Smith', 'John Smith'],
      ['Mark Lee', 'Mary Lee'],
      ['Marta Rossi', 'Maria Rossi'],
    ]) {
      expect(asWatchlist(a!, b!), `${a} ≁ ${b}`).toBeLessThan(NAME_MATCH_THRESHOLD);
      // Across an extraction's pages too: merged, two people's votes would make one name.
      expect(bestNameScore(a!, [b!]), `${a} ≁ ${b}`).toBeLessThan(NAME_MATCH_THRESHOLD);
    }
    for (const [a, b] of [
      ['Ahmad Karimi', 'Ahmed Karimi'],
      ['Jon Smith', 'John Smith'],
      ['Ann Lee', 'Anne Lee'],
      ['Victor Draganov', 'Viktor Draganov'],
    ]) {
      expect(asWatchlist(a!, b!), `${a} ~ ${b}`).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
      expect(bestNameScore(a!, [b!]), `${a} ~ ${b}`).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
    }
  });

  it('against a watch-list, an initial stands for no given name (a flag must not rest on it)', () => {
    const asWatchlist = (a: string, b: string) => bestNameScore(a, [b], 'watchlist');
    expect(asWatchlist('J. Smith', 'John Smith')).toBeLessThan(NAME_MATCH_THRESHOLD);
    expect(asWatchlist('J. Smith', 'Jane Smith')).toBeLessThan(NAME_MATCH_THRESHOLD);
    expect(bestNameScore('J. Smith', ['John Smith'])).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
    // Full names keep their spelling variants, and a middle initial only one side has costs as before.
    expect(asWatchlist('Victor Draganov', 'Viktor Draganov')).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
    expect(asWatchlist('Amelia N. Okafor', 'Amelia Okafor')).toBeGreaterThanOrEqual(NAME_MATCH_THRESHOLD);
    expect(asWatchlist('J. R. Smith', 'J. R. Smith')).toBe(1);
  });

  it('scores 1 for the same tokens and 0 for nothing in common, within 0–1', () => {
    expect(nameSimilarity('Anna Lindqvist', 'lindqvist anna')).toBe(1);
    expect(nameSimilarity('Anna Lindqvist', 'Peter Dunn')).toBe(0);
    expect(nameSimilarity('', 'Peter Dunn')).toBe(0);
    const score = nameSimilarity('J. Smith', 'John Smith');
    expect(score).toBeGreaterThan(0.9);
    expect(score).toBeLessThan(1);
  });
});
