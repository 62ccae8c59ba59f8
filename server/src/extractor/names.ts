import nlp from 'compromise';
import type { FacePosition, ResultInput } from './analysis-types.ts';
import {
  CJK_LETTERS,
  foldText,
  nameTokens,
  NAME_MATCH_THRESHOLD,
  TITLES_BEFORE_NAMES,
  tokenSimilarity,
} from './name-match.ts';

/**
 * Person names in page text. Candidates are runs of capitalised words (with initials and particles
 * such as "de", "van", "al"); each is kept or dropped by the named-entity tags of `compromise` (first
 * names, surnames, honorifics vs organisations, places, dates) and a short list of words that make a
 * run an organisation or a place ("Ltd", "Council", "Street"…). Titles before a name ("Mayor",
 * "Managing director", "Ms") are cut off; a title followed by a surname alone ("Ms Marsh") is kept as a
 * surname mention and merged into the full name it belongs to.
 */

export interface NameCandidate {
  /** The name as written (titles removed), e.g. "Helena Marsh". */
  name: string;
  tokens: string[];
  /** Where in the text it starts (characters). */
  index: number;
}

/** Lowercase words allowed inside a name. */
const PARTICLES = new Set([
  'de',
  'da',
  'del',
  'della',
  'di',
  'du',
  'van',
  'von',
  'der',
  'den',
  'la',
  'le',
  'al',
  'el',
  'bin',
  'ibn',
  'dos',
  'das',
  'y',
]);

/** Words before a name that are not part of it: titles, and the roles and captions that precede names. */
const TITLES = new Set([
  ...TITLES_BEFORE_NAMES,
  'sister',
  'brother',
  'prime',
  'vice',
  'inspector',
  'detective',
  'sergeant',
  'chancellor',
  'secretary',
  'chairman',
  'chairwoman',
  'chair',
  'director',
  'managing',
  'chief',
  'executive',
  'ceo',
  'founder',
  'businessman',
  'businesswoman',
  'tycoon',
  'candidate',
  'candidates',
  'volunteer',
  'volunteers',
  'organiser',
  'organisers',
  'organizer',
  'organizers',
  'photo',
  'portrait',
  'pictured',
  'actor',
  'actress',
  'singer',
  'author',
  'coach',
  'player',
  'striker',
  'suspect',
  'fugitive',
  'defendant',
  'witness',
  'king',
  'queen',
  'prince',
  'princess',
  'ambassador',
  'commissioner',
  'superintendent',
  'constable',
  'editor',
  'reporter',
  'correspondent',
  'spokesman',
  'spokeswoman',
  'spokesperson',
  'leader',
  'dj',
  'st',
]);

/** Courtesy titles: a title followed by one capitalised word makes that word a surname ("Ms Marsh"). */
const COURTESY = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'dame', 'lord', 'lady']);

/**
 * Words that name a kind of business or organisation. Inside a run ("Haulier Northwind", "Northwind
 * Haulage") they make it an organisation; written in lower case just before a run ("the haulier
 * Northwind Express", "logistics company Northwind") they say the run is the organisation's name, unless
 * it opens with a first name compromise knows ("the company Carla Mendes founded").
 */
const ORGANISATION_KINDS = (
  'haulier hauliers haulage firm firms operator operators retailer retailers supermarket supermarkets ' +
  'grocer grocers manufacturer manufacturers carmaker producer producers supplier suppliers distributor ' +
  'distributors wholesaler wholesalers exporter exporters importer importers insurer insurers lender lenders ' +
  'banks brewery breweries distillery developer developers contractor contractors consultancy agencies ' +
  'startup conglomerate subsidiary multinational airline airlines shipping freight couriers dealership ' +
  'enterprises ventures logistics company companies group business businesses corporation charity charities ' +
  'broadcaster publisher publishers newspaper'
).split(' ');
const ORGANISATION_KIND_SET = new Set(ORGANISATION_KINDS);

/** A run containing one of these is an organisation, a place, an event or a thing, not a person. */
const NOT_PERSON_WORDS = new Set(
  (
    'ltd limited inc incorporated llc plc corp corporation company co group holdings bank fund foundation trust ' +
    'party council committee commission board assembly parliament senate congress government ministry department ' +
    'agency office bureau service services police court tribunal prison university college school academy ' +
    'institute hospital hospice clinic church cathedral mosque temple museum library gallery theatre theater cinema ' +
    'club society association union alliance federation league network news times post herald courier digest daily ' +
    'weekly journal gazette tribune press media magazine radio tv television street st road rd lane avenue ave ' +
    'square park bridge river valley lake mountain hill island islands airport station port harbour harbor hall ' +
    'exchange centre center market tower house palace castle estate city town village county district region ' +
    'province state states republic kingdom federation empire north south east west northern southern eastern ' +
    'western central festival gala awards award prize cup championship games olympics conference summit forum ' +
    'week day monday tuesday wednesday thursday friday saturday sunday january february march april may june july ' +
    'august september october november december logistics industries airlines airways motors energy water oil gas ' +
    'media studios records pictures capital partners consulting solutions systems technologies labs software ' +
    'online project programme program act law regulation treaty crown high middle primary secondary national ' +
    'international global european american british african asian royal general hotel restaurant cafe pub ' +
    'stadium arena avenue way drive close crescent terrace gardens green fields chamber commerce ' +
    ORGANISATION_KINDS.join(' ')
  ).split(' '),
);

/** Words that are never a surname: a run with one is an organisation, a place or an event. */
const STRONG_NOT_PERSON_WORDS = new Set(
  (
    'ltd limited inc incorporated llc plc corp corporation company co group holdings bank foundation trust party ' +
    'council committee commission board assembly parliament senate government ministry department agency office ' +
    'bureau police court tribunal prison university college school academy institute hospital hospice clinic ' +
    'church cathedral museum library club society association union alliance federation league news times courier ' +
    'digest daily journal gazette tribune street st road rd lane avenue ave square river valley lake airport ' +
    'station harbour harbor festival centre center stadium arena hotel restaurant cafe pub chamber commerce ' +
    'logistics monday tuesday wednesday thursday friday saturday sunday republic kingdom ' +
    ORGANISATION_KINDS.join(' ')
  ).split(' '),
);

function isSoftSurnameRun(folded: string[]): boolean {
  return !folded.some((w) => STRONG_NOT_PERSON_WORDS.has(w)) && folded.length <= 3;
}

/** Sentence starters and other capitalised words that begin a run but are never a name. */
const STARTERS = new Set(
  (
    'the a an in on at after before when while as if but and or of for from to with by this that these those ' +
    'his her their its our my your he she they we it there here then also yet so former late new old ' +
    'according during under over about since until former meanwhile however although though today yesterday ' +
    'tomorrow last next every each all both many some most more several two three four five photo photos image ' +
    'picture credit source read more see watch listen share follow home contact about privacy terms ' +
    'left right centre center top bottom front back above below pictured file handout courtesy via'
  ).split(' '),
);

const TOKEN = String.raw`(?:\p{Lu}\.|\p{Lu}[\p{L}'’-]*\p{Ll}[\p{L}'’-]*)`;
const PARTICLE = String.raw`(?:de|da|del|della|di|du|van|von|der|den|la|le|al|el|bin|ibn|dos|das|y)`;
/** Up to six capitalised words (or initials), particles allowed between them. */
const RUN = new RegExp(
  String.raw`(?<![\p{L}\p{N}.])${TOKEN}(?:[ \t\u00a0]+(?:${PARTICLE}[ \t\u00a0]+){0,2}${TOKEN}){0,5}`,
  'gu',
);

const tagCache = new Map<string, string[][]>();

/** compromise's tags of each word of a short string (cached: the same names recur across pages). */
function tagsOf(text: string): string[][] {
  const cached = tagCache.get(text);
  if (cached) return cached;
  const terms = (nlp(text).json() as { terms: { text: string; tags: string[] }[] }[]).flatMap((s) => s.terms);
  const tags = terms.map((t) => t.tags);
  if (tagCache.size > 20_000) tagCache.clear();
  tagCache.set(text, tags);
  return tags;
}

const isInitial = (word: string) => /^\p{Lu}\.$/u.test(word);

function cleanWord(word: string): string {
  return word.replace(/^['’-]+|['’-]+$/g, '');
}

/** Decides whether a run of capitalised words (titles already removed) is a person's name. */
function looksLikePerson(words: string[], atSentenceStart = false): boolean {
  const real = words.filter((w) => !PARTICLES.has(w) && !isInitial(w));
  if (real.length === 0) return false;
  if (words.length < 2) return false;
  if (real.length > 4) return false;
  const folded = words.map((w) => foldText(w));
  if (folded.some((w) => STARTERS.has(w) || STRONG_NOT_PERSON_WORDS.has(w))) return false;
  if (folded.some((w) => NOT_PERSON_WORDS.has(w))) {
    // Words like "Park", "Hall" or "Bell" are also surnames: "Nina Park" is a person, "Riverside Park"
    // is not. A known first name in front decides.
    const first = real[0]!;
    if (isSoftSurnameRun(folded) && tagsOf(first)[0]?.includes('FirstName')) return true;
    return false;
  }
  if (isInitial(words[words.length - 1]!)) return false; // "Helena J." is a cut name
  const tags = tagsOf(real.join(' '));
  const flat = tags.flat();
  if (flat.includes('Organization') || flat.includes('Date') || flat.includes('Month')) return false;
  if (flat.some((t) => t === 'Country' || t === 'City' || t === 'Region')) {
    // A place, unless a first name or surname is there too.
    if (!flat.some((t) => t === 'FirstName' || t === 'LastName')) return false;
  }
  if (flat.some((t) => t === 'Person' || t === 'FirstName' || t === 'LastName')) return true;
  // At the start of a sentence or a title every word may be capitalised: ask for a known name there.
  if (atSentenceStart && real.length === words.length) return false;
  // Unknown capitalised words are read as nouns: a run of proper nouns and plain nouns is a name, one
  // with a verb, an adjective or a function word is not ("Said Marsh", "Breaking News").
  return tags.every(
    (termTags) =>
      (termTags.includes('ProperNoun') || termTags.includes('Noun')) &&
      !termTags.some((t) => NON_NAME_TAGS.has(t)),
  );
}

const NON_NAME_TAGS = new Set([
  'Verb',
  'Adjective',
  'Adverb',
  'Preposition',
  'Determiner',
  'Conjunction',
  'Pronoun',
  'Value',
  'Plural',
  'Uncountable',
]);

export interface PersonMentions {
  /** Full names (two words or more), in the order they first appear. */
  names: NameCandidate[];
  /** Surnames written after a courtesy title ("Ms Marsh" → Marsh). */
  surnames: NameCandidate[];
}

/** Person names written in a text. */
export function findPersonNames(text: string, options: { captionLike?: boolean } = {}): PersonMentions {
  const names: NameCandidate[] = [];
  const surnames: NameCandidate[] = [];
  if (!text) return { names, surnames };
  for (const match of text.matchAll(RUN)) {
    const words = match[0]
      .split(/[ \t\u00a0]+/)
      .map(cleanWord)
      .filter(Boolean);
    let start = 0;
    let sawCourtesy = false;
    // Cut titles and sentence starters off the front ("Mayor Helena Marsh", "Managing director…").
    while (start < words.length) {
      const folded = foldText(words[start]!.replace(/\.$/, ''));
      if (TITLES.has(folded) || STARTERS.has(folded)) {
        if (COURTESY.has(folded)) sawCourtesy = true;
        start++;
        continue;
      }
      break;
    }
    // A possessive ends the name ("Marsh's plan").
    const rest = words.slice(start).map((w) => w.replace(/['’]s$/u, ''));
    const index = match.index;
    if (rest.length === 1 && sawCourtesy && !isInitial(rest[0]!)) {
      surnames.push({ name: rest[0]!, tokens: nameTokens(rest[0]!), index });
      continue;
    }
    const before = text.slice(Math.max(0, index - 3), index);
    // "the haulier Northwind Express", "logistics company Northwind Freight": the run names the firm.
    const wordBefore = /([\p{Ll}-]+)[ \t\u00a0]+$/u.exec(text.slice(Math.max(0, index - 30), index))?.[1];
    if (
      start === 0 &&
      wordBefore &&
      ORGANISATION_KIND_SET.has(wordBefore) &&
      !tagsOf(rest[0] ?? '')[0]?.includes('FirstName')
    )
      continue;
    // A capitalised word opening a sentence or a title may be an ordinary word ("Haulier Northwind
    // expands…"); there the run needs a known name, or to be followed like a person ("…, 52,", "said").
    // A dash or a bar starts a headline too ("Latest — Haulier Northwind expands…", "Home | Title").
    // Captions and alt texts often open with a name and are read without this doubt.
    const following = text.slice(index + match[0].length, index + match[0].length + 12);
    const atStart =
      !options.captionLike &&
      start === 0 &&
      (index === 0 || /[.!?:\n"“|—–]\s*$/.test(before)) &&
      !/^(?:\s*,\s*(?:\d|who\b|an?\b|the\b)|\s+(?:said|says|is|was|has|had|who|told|added)\b|\s*\()/.test(
        following,
      );
    // A title inside the run, with words after it, splits it: "Foreign Minister Sergei Lavrov" names
    // Sergei Lavrov, not "Foreign Minister Sergei Lavrov" (a last word may be a surname: Stephen King).
    const titleInside = rest.slice(0, -1).some((word) => TITLES.has(foldText(word.replace(/\.$/, ''))));
    if (!titleInside && looksLikePerson(rest, atStart)) {
      const name = rest.join(' ');
      names.push({ name, tokens: nameTokens(name), index });
      continue;
    }
    // "Monday Sarah Connor", "Riverton Mayor Helena Marsh": the name is a part of the run, between
    // words that cannot be in a name.
    // A part directly followed by an organisation or place word belongs to it ("Riverton Civic Party").
    // The words right before a title qualify it ("Russian Foreign Minister", "Riverton Mayor"): no name.
    let segment: string[] = [];
    const segments: string[][] = [];
    for (const word of rest) {
      const folded = foldText(word.replace(/\.$/, ''));
      if (NOT_PERSON_WORDS.has(folded)) {
        segment = [];
      } else if (TITLES.has(folded)) {
        segment = [];
      } else if (STARTERS.has(folded)) {
        if (segment.length) segments.push(segment);
        segment = [];
      } else segment.push(word);
    }
    if (segment.length) segments.push(segment);
    if (segments.length === 1 && segments[0]!.length === rest.length) continue;
    for (const part of segments) {
      if (looksLikePerson(part)) {
        const name = part.join(' ');
        names.push({
          name,
          tokens: nameTokens(name),
          index: index + Math.max(0, match[0].indexOf(part[0]!)),
        });
      }
    }
  }
  return { names, surnames };
}

/** Where a mention was found, and how much it says about who the pictured face is. */
export type MentionSource = 'caption' | 'alt' | 'nearby' | 'title' | 'text';
export const SOURCE_WEIGHT: Record<MentionSource, number> = {
  caption: 5,
  alt: 4,
  title: 3,
  nearby: 3,
  text: 1,
};

/** A person named on a page: the longest form of the name and every variant seen. */
export interface PagePerson {
  name: string;
  tokens: string[];
  variants: Set<string>;
  /** Weighted mentions, by source. */
  score: number;
  sources: Set<MentionSource>;
  /** Mentions in the page's own text (for "seen with"). */
  textMentions: number;
  /** A caption or alt text places the person in the photo: "Jo Whitcombe (left)". */
  placed?: FacePosition;
  /** Placed elsewhere in the photo than the searched face: someone else in the picture, not this face. */
  elsewhere?: boolean;
}

const surnameOf = (tokens: string[]) => tokens[tokens.length - 1] ?? '';

/**
 * Merges two forms of one name: the same tokens in any order, initials ("H. Marsh"), small spelling
 * differences ("Helena Marsch"), or a shorter form whose words all belong to the longer one.
 */
export function sameNameVariant(a: string[], b: string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  if (tokenSimilarity(a, b) >= NAME_MATCH_THRESHOLD) {
    // Same surname required when both have two words or more (Jo Whitcombe ≠ Jo Whitfield).
    const sa = surnameOf(a);
    const sb = surnameOf(b);
    return sa === sb || a.includes(sb) || b.includes(sa) || tokenSimilarity([sa], [sb]) >= 0.8;
  }
  return false;
}

/**
 * "(left)", "(right)", "(centre)" written right after a name in a caption, or the agencies' "(L)", "(R)",
 * "(C)"; "(far left)" counts as left.
 */
const PLACE_AFTER_NAME = /^\s*,?\s*\((?:far\s+|pictured\s+)?(left|right|centre|center|middle|l|r|c)\)/i;

/** Where the caption places the person named by `candidate` in the photo, if it says so. */
function placeAfter(text: string, candidate: NameCandidate): FacePosition | undefined {
  const at = text.indexOf(candidate.name, candidate.index);
  if (at < 0) return undefined;
  const word = PLACE_AFTER_NAME.exec(
    text.slice(at + candidate.name.length, at + candidate.name.length + 40),
  )?.[1];
  if (!word) return undefined;
  const lower = word.toLowerCase();
  if (lower === 'left' || lower === 'l') return 'left';
  if (lower === 'right' || lower === 'r') return 'right';
  return 'centre';
}

/**
 * A caption that lists the people in order: "From left: A, B and C", "Left to right: …", "L-R: …" before
 * the names, or "A, B and C (from left)" after them.
 */
const ORDER_BEFORE_NAMES =
  /(?:^|[.;]\s+|\()\s*(?:(?:pictured|photo|shown)\s+)?(?:from\s+left|left\s+to\s+right|l\s*(?:-|–|to)\s*r)\s*[:,)]/gi;
const ORDER_AFTER_NAMES = /\(\s*(?:from\s+left|left\s+to\s+right|l\s*(?:-|–|to)\s*r)\s*\)/gi;

/**
 * The places of the people a caption lists in order: the first named stands left, the last right, any
 * between in the centre (as `facePositionAmong` places the searched face).
 */
function placesInOrder(text: string, names: NameCandidate[]): Map<NameCandidate, FacePosition> {
  const places = new Map<NameCandidate, FacePosition>();
  const sentenceEnds = [...text.matchAll(/[.;](?:\s|$)/g)].map((m) => m.index);
  const listed: NameCandidate[][] = [];
  for (const marker of text.matchAll(ORDER_BEFORE_NAMES)) {
    const from = marker.index + marker[0].length;
    const to = sentenceEnds.find((end) => end >= from) ?? text.length;
    listed.push(names.filter((n) => n.index >= from && n.index < to));
  }
  for (const marker of text.matchAll(ORDER_AFTER_NAMES)) {
    const from = sentenceEnds.filter((end) => end < marker.index).at(-1) ?? -1;
    listed.push(names.filter((n) => n.index > from && n.index < marker.index));
  }
  for (const row of listed) {
    if (row.length < 2) continue;
    row.forEach((name, i) => places.set(name, i === 0 ? 'left' : i === row.length - 1 ? 'right' : 'centre'));
  }
  return places;
}

/**
 * A name right after "wife of", "son of"… in a caption is a relation of the person pictured, not someone
 * the photo shows: "Jane Doe, wife of John Smith, at the gala".
 */
const RELATION_BEFORE_NAME =
  /\b(?:wife|husband|widow|widower|son|daughter|mother|father|brother|sister|partner|fianc[ée]e?|girlfriend|boyfriend|niece|nephew|grandson|granddaughter|cousin|uncle|aunt|stepson|stepdaughter)\s+of\s+(?:the\s+late\s+)?(?:[\p{Lu}][\p{L}.]*\s+){0,2}$/u;

/**
 * The photographer a caption credits is not in the photo, nor on the page as a person of the story:
 * "Photo: John Smith/Reuters", "Picture by Ted Aljibe", "Ted Aljibe/AFP", "© Jane Doe".
 */
const CREDIT_BEFORE_NAME =
  /(?:\b(?:photo(?:graph)?s?|pictures?|image|credit|courtesy)(?:\s+(?:by|credit))?\s*[:\-–—]?|\b(?:photographed|taken|shot)\s+by|©|\(c\))\s*$/iu;

function namedAsCredit(text: string, candidate: NameCandidate): boolean {
  const after = text.slice(
    candidate.index + candidate.name.length,
    candidate.index + candidate.name.length + 3,
  );
  if (/^\s*\/\s*\p{L}/u.test(after)) return true;
  return CREDIT_BEFORE_NAME.test(text.slice(Math.max(0, candidate.index - 40), candidate.index));
}

function namedAsRelation(text: string, candidate: NameCandidate): boolean {
  return RELATION_BEFORE_NAME.test(text.slice(Math.max(0, candidate.index - 60), candidate.index));
}

/** Letters of scripts without capital letters, where capitalisation cannot tell a name (Arabic, Hebrew). */
export const CASELESS_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}]/u;

/**
 * Letters of Chinese, Japanese and Korean: no capitals either, and Chinese and Japanese put no spaces
 * between words, so a name is a stretch inside a run of letters.
 */
export const CJK_LETTER = new RegExp(`[${CJK_LETTERS}]`, 'u');

/** Names found by other means in a result's texts (the watch-lists' names in caseless scripts), by source. */
export type KnownNames = Partial<Record<MentionSource, NameCandidate[]>>;

/** The texts of a result names are looked for in, by source; the page's text cut to `maxTextChars`. */
export function textsOfResult(result: ResultInput, maxTextChars = 20_000): [string, MentionSource][] {
  return [
    [result.image.caption, 'caption'],
    [result.image.alt, 'alt'],
    [result.page.title, 'title'],
    [result.image.nearbyText, 'nearby'],
    [result.page.text.slice(0, maxTextChars), 'text'],
  ];
}

/** Everything a page says about who is on it: every person named, with weights for the picture. */
export function peopleOfResult(result: ResultInput, knownNames: KnownNames = {}): PagePerson[] {
  const people: PagePerson[] = [];
  const surnameMentions: { surname: string; source: MentionSource }[] = [];
  const add = (candidate: NameCandidate, source: MentionSource) => {
    const weight = SOURCE_WEIGHT[source];
    const existing = people.find((p) => sameNameVariant(p.tokens, candidate.tokens));
    if (existing) {
      existing.variants.add(candidate.name);
      existing.score += weight;
      existing.sources.add(source);
      if (source === 'text') existing.textMentions++;
      // Keep the fullest written form as the name.
      const initials = (tokens: string[]) => tokens.filter((t) => t.length === 1).length;
      if (
        candidate.tokens.length > existing.tokens.length ||
        (candidate.tokens.length === existing.tokens.length &&
          initials(candidate.tokens) < initials(existing.tokens))
      ) {
        existing.name = candidate.name;
        existing.tokens = candidate.tokens;
      }
      return;
    }
    people.push({
      name: candidate.name,
      tokens: candidate.tokens,
      variants: new Set([candidate.name]),
      score: weight,
      sources: new Set([source]),
      textMentions: source === 'text' ? 1 : 0,
    });
  };
  for (const [text, source] of textsOfResult(result)) {
    const captionLike = source === 'caption' || source === 'alt';
    const found = findPersonNames(text, { captionLike });
    const inOrder = captionLike ? placesInOrder(text, found.names) : new Map<NameCandidate, FacePosition>();
    for (const candidate of [...found.names, ...(knownNames[source] ?? [])]) {
      if (captionLike && namedAsCredit(text, candidate)) continue;
      // A relation named in a caption is on the page, not in the photo.
      add(candidate, captionLike && namedAsRelation(text, candidate) ? 'text' : source);
      const placed = captionLike ? (placeAfter(text, candidate) ?? inOrder.get(candidate)) : undefined;
      const person = people.find((p) => sameNameVariant(p.tokens, candidate.tokens));
      if (placed && person) person.placed ??= placed;
    }
    for (const s of found.surnames) surnameMentions.push({ surname: s.tokens[0] ?? '', source });
  }
  // A photo of several people whose caption says who stands where: the searched face's own place names it.
  const position = result.facePosition;
  if (position) {
    for (const person of people) {
      if (!person.placed) continue;
      if (person.placed === position) person.score += SOURCE_WEIGHT.caption;
      else person.elsewhere = true;
    }
  }
  // "Ms Marsh" counts for the one person of the page whose surname is Marsh.
  for (const { surname, source } of surnameMentions) {
    const owners = people.filter((p) => surnameOf(p.tokens) === surname);
    if (owners.length === 1) {
      owners[0]!.score += SOURCE_WEIGHT[source] * 0.5;
      owners[0]!.sources.add(source);
    }
  }
  return people.sort((a, b) => b.score - a.score);
}

/** Named by the texts around the picture (caption, alt, title, nearby text), not only by the page. */
export function namedAroundPicture(person: PagePerson): boolean {
  const { sources } = person;
  return sources.has('caption') || sources.has('alt') || sources.has('title') || sources.has('nearby');
}

/**
 * Names of one result for its picture, best first: people named around it, less those the caption places
 * elsewhere in the photo than the searched face (they are seen with it, not it).
 */
export function candidatesForPicture(people: PagePerson[]): PagePerson[] {
  return people.filter((p) => !p.elsewhere && namedAroundPicture(p)).sort((a, b) => b.score - a.score);
}
