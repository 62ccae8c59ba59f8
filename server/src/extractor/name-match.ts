import { distance } from 'fastest-levenshtein';

/**
 * Person-name comparison for watch-list matching and for merging the variants of one name across
 * pages. Names are normalised (case, accents, punctuation, honorifics and titles), then compared token
 * by token in any order: equal tokens count 1, an initial against a name starting with it 0.9, a small
 * spelling difference (Levenshtein) a little less; tokens one name has and the other lacks (a middle
 * name, a patronymic) cost 0.3 of a token. See README.md in this folder for the calibration of the threshold.
 */

/** Scores at or above this mean "the same name" (calibrated on the cases of name-match.test.ts). */
export const NAME_MATCH_THRESHOLD = 0.85;

/**
 * Courtesy titles, ranks and offices written before a name ("Dr", "Mayor", "Herr", "MP"): not part of the
 * name, both when names are compared and when they are found in page text (names.ts).
 */
export const TITLES_BEFORE_NAMES: readonly string[] = [
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'professor',
  'sir',
  'dame',
  'lord',
  'lady',
  'rev',
  'reverend',
  'fr',
  'father',
  'hon',
  'honourable',
  'honorable',
  'minister',
  'deputy',
  'senator',
  'sen',
  'rep',
  'representative',
  'president',
  'governor',
  'gov',
  'mayor',
  'councillor',
  'councilor',
  'cllr',
  'judge',
  'justice',
  'general',
  'gen',
  'colonel',
  'col',
  'captain',
  'capt',
  'officer',
  'sheikh',
  'herr',
  'frau',
  'mme',
  'mlle',
  'monsieur',
  'madame',
  'senor',
  'senora',
  'mp',
  'mep',
];

/** Words that are not part of a name when names are compared: titles, and the forms of address and
 * post-nominal letters written around a name ("Rt Hon", "Jr", "QC"). */
const HONORIFICS = new Set([
  ...TITLES_BEFORE_NAMES,
  'rt',
  'right',
  'sr',
  'jr',
  'ii',
  'iii',
  'qc',
  'kc',
  'phd',
]);

/**
 * Cyrillic and Greek letters in Latin, as English-language sources and sanctions lists spell the names
 * (BGN/PCGN-like, simplified): "Владимир Путин" is compared as "vladimir putin" and "Дмитрий" as
 * "dmitry", so a name written in either script matches the other. Applied to lower case.
 */
// prettier-ignore
const TRANSLITERATION: Record<string, string> = {
  а: 'a', б: 'b', в: 'v', г: 'g', д: 'd', е: 'e', ё: 'e', ж: 'zh', з: 'z', и: 'i', й: 'y', к: 'k',
  л: 'l', м: 'm', н: 'n', о: 'o', п: 'p', р: 'r', с: 's', т: 't', у: 'u', ф: 'f', х: 'kh', ц: 'ts',
  ч: 'ch', ш: 'sh', щ: 'shch', ъ: '', ы: 'y', ь: '', э: 'e', ю: 'yu', я: 'ya',
  є: 'ye', і: 'i', ї: 'yi', ґ: 'g', ђ: 'dj', ј: 'j', љ: 'lj', њ: 'nj', ћ: 'c', џ: 'dz', ѓ: 'gj', ќ: 'kj',
  ѕ: 'dz', ў: 'u',
  α: 'a', β: 'v', γ: 'g', δ: 'd', ε: 'e', ζ: 'z', η: 'i', θ: 'th', ι: 'i', κ: 'k', λ: 'l', μ: 'm',
  ν: 'n', ξ: 'x', ο: 'o', π: 'p', ρ: 'r', σ: 's', ς: 's', τ: 't', υ: 'y', φ: 'f', χ: 'ch', ψ: 'ps',
  ω: 'o',
};
const TRANSLITERATED = new RegExp(`[${Object.keys(TRANSLITERATION).join('')}]`, 'gu');
/** A transliterated letter standing alone: an initial ("Ю." of Юрий). */
const TRANSLITERATED_INITIAL = new RegExp(
  `(?<![\\p{L}\\p{M}])[${Object.keys(TRANSLITERATION).join('')}](?![\\p{L}\\p{M}])`,
  'gu',
);

/** Letters only Ukrainian writes: a word with one is read as Ukrainian. */
const UKRAINIAN_WORD = /[\p{L}]*[іїєґ][\p{L}]*/gu;

function toLatin(lower: string): string {
  return (
    lower
      // Ukrainian г is "h" and и is "y" (Hryhoriy, Serhiy; Russian Григорий is Grigory).
      .replace(UKRAINIAN_WORD, (word) => word.replace(/г/g, 'h').replace(/и/g, 'y'))
      // е and ё after a vowel are "ye" and "yo" (Mirziyoyev, Andreyev).
      .replace(/(?<=[аеёиоуыэюяіїєъь])[её]/g, (letter) => (letter === 'е' ? 'ye' : 'yo'))
      // The endings -ий/-ый are "y" in English spellings (Dmitry, Zelensky, Dostoevsky).
      .replace(/(?:ий|ый)(?=$|[^\p{L}])/gu, 'y')
      // Greek digraphs: Papadopoulos, Mavros, Evangelos, Angelos.
      .replace(/ου/g, 'ou')
      .replace(/αυ/g, 'av')
      .replace(/ευ/g, 'ev')
      .replace(/γγ/g, 'ng')
      // An initial stays one letter, the first of the name it stands for ("Ю." → "y", as Юрий → "yury"),
      // so that it is still taken for an initial.
      .replace(TRANSLITERATED_INITIAL, (letter) => TRANSLITERATION[letter]!.slice(0, 1))
      .replace(TRANSLITERATED, (letter) => TRANSLITERATION[letter]!)
  );
}

/**
 * Lower case, Cyrillic and Greek in Latin letters, accents removed (NFD), punctuation to spaces; ß, æ, ø
 * and friends spelled out.
 */
export function foldText(text: string): string {
  // NFD takes the breve off "й" and the diaeresis off "ї", letters of their own: put them back first.
  const decomposed = text
    .toLowerCase()
    .normalize('NFD')
    .replace(/и\u0306/g, 'й')
    .replace(/е\u0308/g, 'ё')
    .replace(/і\u0308/g, 'ї')
    // So do the voicing marks of kana: バイデン is not ハイデン.
    .replace(/[\u3040-\u30ff][\u3099\u309a]/g, (kana) => kana.normalize('NFC'));
  return (
    toLatin(decomposed)
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/ß/g, 'ss')
      .replace(/æ/g, 'ae')
      .replace(/œ/g, 'oe')
      .replace(/ø/g, 'o')
      .replace(/ł/g, 'l')
      .replace(/đ/g, 'd')
      .replace(/['’`´]/g, '')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
      // NFD split Korean syllables into their letters (jamo); they are written, compared and cut whole.
      .normalize('NFC')
  );
}

/** The tokens of a name, without honorifics ("Dr. Jean-Luc Dupré" → jean, luc, dupre). */
export function nameTokens(name: string): string[] {
  const tokens = foldText(name).split(' ').filter(Boolean);
  const kept = tokens.filter((t) => !HONORIFICS.has(t));
  // A name that is only a title ("Minister") has no name tokens.
  return kept;
}

/** A name as one normalised string (tokens in their order). */
export function normaliseName(name: string): string {
  return nameTokens(name).join(' ');
}

/**
 * Keys for finding candidates fast (stored with each watch-list entry, looked up with the keys of a
 * name found on a page): every token of two letters or more, and its first four letters, so that a
 * spelling difference at the end of a token ("Draganov"/"Draganoff") still finds the entry. A name in
 * Chinese, Japanese or Korean of several words ("田中 浩志") is also keyed whole, as pages write it
 * without the space (`WatchlistService.namesIn` looks up a page's three- and four-letter stretches).
 */
export function nameKeys(names: string[]): string[] {
  const keys = new Set<string>();
  const add = (token: string) => {
    keys.add(token);
    if ([...token].length > 4) keys.add(`${[...token].slice(0, 4).join('')}*`);
  };
  for (const name of names) {
    const tokens = nameTokens(name);
    for (const word of tokens) if (word.length >= 2) add(spelledOut(word));
    if (tokens.length > 1 && tokens.every((token) => CJK_WORD.test(token))) add(tokens.join(''));
  }
  return [...keys];
}

/** Letters of Chinese, Japanese and Korean (a regular-expression class's contents). */
export const CJK_LETTERS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
/** A word of Chinese, Japanese or Korean letters only. */
export const CJK_WORD = new RegExp(`^[${CJK_LETTERS}]+$`, 'u');

/**
 * How names are compared: `merge` (the variants of one name across pages: "J. Smith" is John Smith where
 * the pages say so) or `watchlist` (a name against a sanctions or PEP list, where a match raises a flag on
 * a real person: an initial stands for no given name, so "J. Smith" matches neither John nor Jane Smith).
 */
export type NameComparison = 'merge' | 'watchlist';

/**
 * Two forms of one stem that name a woman and a man: a final "a" against "o" (Maria/Mario, Ivana/Ivano;
 * not the unisex -enko), against "e" after an "l" (Daniela/Daniele, Michela/Michele), against "i" after
 * "sk"/"ck" or an "e" (Kowalska/Kowalski, Andrea/Andrei), against "y" after a consonant (Novotna/Novotny,
 * Kowalska/Kowalsky); a final "e" against "o" after an "i" (Marie/Mario, Julie/Julio); an "a" added after
 * a consonant (Ivanova/Ivanov, Aleksandra/Aleksandr) or after "iy" (Yevgeniya/Yevgeniy), or an "ova"
 * (Novakova/Novak); the French and English feminines: an "e" after "is" or "in" (Louise/Louis,
 * Justine/Justin), "le" after "el" (Danielle/Daniel), "ne" after "an" (Jeanne/Jean), and the endings
 * "ra"/"er", "na"/"an", "es"/"is" (Alexandra/Alexander, Christina/Christian, Frances/Francis). Other differences in the
 * ending spell one name several ways (Dmitri/Dmitrii, Yuri/Yurii, Elena/Eleni, Marie/Maria) and are
 * compared as spellings.
 */
function genderedForms(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length < 3) return false;
  const endsInConsonant = !/[aeiouy]$/.test(short);
  if (long.length === short.length + 1)
    return (
      (long === `${short}a` && (endsInConsonant || short.endsWith('iy'))) || // Yevgeniy/Yevgeniya
      (long === `${short}e` && /(?:is|in)$/.test(short)) // Louis/Louise, Denis/Denise, Justin/Justine
    );
  if (long.length === short.length + 2)
    // Daniel/Danielle, Gabriel/Gabrielle, Michel/Michelle; Jean/Jeanne.
    return (long === `${short}le` && short.endsWith('el')) || (long === `${short}ne` && short.endsWith('an'));
  if (long.length === short.length + 3) return long === `${short}ova` && endsInConsonant;
  if (long.length === short.length && short.slice(0, -2) === long.slice(0, -2)) {
    // Alexander/Alexandra, Christian/Christina, Francis/Frances.
    const endings = [short.slice(-2), long.slice(-2)].sort().join('/');
    if (endings === 'er/ra' || endings === 'an/na' || endings === 'es/is') return true;
  }
  const stem = short.slice(0, -1);
  if (long.length !== short.length || long.slice(0, -1) !== stem) return false;
  const endings = [short.at(-1), long.at(-1)].sort().join('');
  return (
    (endings === 'ao' && !stem.endsWith('enk')) ||
    (endings === 'ae' && stem.endsWith('l')) ||
    (endings === 'ai' && /([sc]k|e)$/.test(stem)) ||
    // Czech and Slovak adjective surnames (Novotná/Novotný, Černá/Černý, Dvorská/Dvorský); not Mary/Mara
    // or a Polish genitive (Schetyna/Schetyny).
    (endings === 'ay' && /([sc]k|[^aeiouy]n)$/.test(stem)) ||
    (endings === 'eo' && stem.endsWith('i'))
  );
}

/**
 * A token as transliterations of one Russian, Ukrainian or Greek name agree on it, compared and looked up
 * that way: "x" written "ks" (Alexander/Aleksandr, Maxim/Maksim, Xenia/Ksenia), and no "y" before an
 * opening "e" or "o" (Yevgeny/Evgeny, Yelena/Elena, Yegor/Egor: the Cyrillic е and ё are written both
 * ways); short tokens keep it (Ye, Yeo).
 */
function spelledOut(token: string): string {
  const spelled = token.replaceAll('x', 'ks');
  return spelled.length >= 5 ? spelled.replace(/^y(?=[eo])/, '') : spelled;
}

/**
 * Letters transliterations write for one another: vowels, consonants of one sound, and the г that Russian
 * writes "g" and Ukrainian "h" (Olga/Olha).
 */
const ALIKE_LETTERS = ['aeiouy', 'ckq', 'vw', 'sz', 'ijy', 'gh'];

/** Whether two tokens of one length differ only by letters written for one another (other lengths: true). */
function onlyAlikeLettersChanged(a: string, b: string): boolean {
  if (a.length !== b.length) return true;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i] && !ALIKE_LETTERS.some((set) => set.includes(a[i]!) && set.includes(b[i]!)))
      return false;
  }
  return true;
}

/** Similarity of two tokens (0–1). */
function tokenScore(written: string, other: string, comparison: NameComparison): number {
  if (written === other) return 1;
  if (written.length === 1 || other.length === 1) {
    // An initial: "j" ~ "john".
    return comparison === 'merge' && written[0] === other[0] ? 0.9 : 0;
  }
  const [a, b] = [spelledOut(written), spelledOut(other)];
  if (a === b) return 1;
  // A man and a woman of one family name or first name are two people: against a watch-list a flag must
  // not pass from one to the other, and across pages their votes must not make one name, nor a Wikipedia
  // article about one describe the other (Mario/Maria Rossi).
  if (genderedForms(a, b)) return 0;
  // Lengths as written: "x" spelled "ks" must not make a short name long enough to tolerate an edit
  // (Max/Mak, Rex/Rek).
  const longest = Math.max(written.length, other.length);
  const d = distance(a, b);
  // A letter changed in a short name for one that does not sound alike makes another name (Joan/John,
  // Mark/Mary, Marta/Maria), not a spelling of it: against a watch-list a false flag says someone is
  // sanctioned or wanted, and across pages it would merge two people. Vowels for vowels (Ahmad/Ahmed,
  // Elena/Eleni) and consonants transliterations swap (Victor/Viktor) stay spellings, and so does a letter
  // left out or added (Jon/John, Ann/Anne).
  if (longest <= 6 && !onlyAlikeLettersChanged(a, b)) return 0;
  // Short tokens tolerate one edit at most; longer ones about one edit in five.
  if (longest <= 4 ? d > 1 : d / longest > 0.25) return 0;
  let score = 1 - d / longest;
  // A different first letter is more often a different name (Bellini/Vellini) than a typo.
  if (a[0] !== b[0]) score -= 0.15;
  return score >= 0.75 ? score : 0;
}

/**
 * How alike two person names are, 0–1, order of tokens ignored. 1: the same tokens. "J. Smith" vs
 * "John Smith" 0.95; "Jon Smith" vs "John Smith" 0.875; "John Smith" vs "John Michael Smith" 0.87; "Smith" vs
 * "John Smith" 0.77 (a surname alone is not a match); "Jane Smith" vs "John Smith" 0.5.
 */
export function nameSimilarity(a: string, b: string): number {
  return tokenSimilarity(nameTokens(a), nameTokens(b));
}

export function tokenSimilarity(
  left: string[],
  right: string[],
  comparison: NameComparison = 'merge',
): number {
  if (left.length === 0 || right.length === 0) return 0;
  const [short, long] = left.length <= right.length ? [left, right] : [right, left];
  // Greedy best pairs: strongest pairs first, each token used once.
  const pairs: { i: number; j: number; score: number }[] = [];
  for (let i = 0; i < short.length; i++) {
    for (let j = 0; j < long.length; j++) {
      const score = tokenScore(short[i]!, long[j]!, comparison);
      if (score > 0) pairs.push({ i, j, score });
    }
  }
  pairs.sort((x, y) => y.score - x.score);
  const usedShort = new Set<number>();
  const usedLong = new Set<number>();
  let sum = 0;
  let initialsOnly = true;
  for (const pair of pairs) {
    if (usedShort.has(pair.i) || usedLong.has(pair.j)) continue;
    usedShort.add(pair.i);
    usedLong.add(pair.j);
    sum += pair.score;
    if (short[pair.i]!.length > 1 && long[pair.j]!.length > 1) initialsOnly = false;
  }
  if (initialsOnly) return 0; // "J. S." matches nothing on its own
  const extra = long.length - short.length;
  return sum / (short.length + 0.3 * extra);
}

export function isSameName(a: string, b: string, threshold = NAME_MATCH_THRESHOLD): boolean {
  return nameSimilarity(a, b) >= threshold;
}

/** Best score of a name against an entry's names (primary name and aliases). */
export function bestNameScore(
  name: string,
  candidates: string[],
  comparison: NameComparison = 'merge',
): number {
  const tokens = nameTokens(name);
  let best = 0;
  for (const candidate of candidates) {
    const score = tokenSimilarity(tokens, nameTokens(candidate), comparison);
    if (score > best) best = score;
  }
  return best;
}
