import type { ExtractionFlag, FlagEvidence } from '@osint/contract/data-extractor';
import { foldText, nameTokens, TITLES_BEFORE_NAMES } from './name-match.ts';

/**
 * Page evidence: sentences that say a person holds an office (politician), was convicted, arrested,
 * charged or is wanted (criminal), or is under sanctions (sanctions). A sentence counts for a person
 * only when it names that person (full name or surname) and the statement is in the person's part of
 * the sentence: the words just before the name ("Minister Amelia Okafor") or the clause after it, up to
 * the next person named. Negated statements ("was acquitted", "not charged", "sanctions were lifted")
 * raise nothing.
 */

interface Rule {
  flag: ExtractionFlag;
  /** A statement of the flag in the words after the name. */
  after: RegExp;
  /** A title right before the name ("Senator", "Minister"). */
  before?: RegExp;
  /** Words that deny the statement where they come before it or inside it ("was not charged"). */
  negation: RegExp;
  /**
   * Words that undo the statement wherever they come in the subject's clause, however far after it
   * ("was arrested in 2019 on suspicion of fraud, but the charges were later dropped").
   */
  reversal?: RegExp;
}

/**
 * "President of" is an office only for a state or a legislature: company, club and university presidents
 * are no politicians ("president of Microsoft"). The rules run case-insensitively, so a capital cannot
 * tell a country from a company: the states are listed (the United Kingdom has no president, and "US"
 * begins too many company names).
 */
const PRESIDENT_OF =
  String.raw`president of (?:the )?(?:republic|country|nation|senate|(?:national |general )?assembly|parliament|` +
  String.raw`chamber of deputies|duma|bundestag|european (?:commission|council|parliament|union)|` +
  String.raw`united states|usa|united arab emirates|uae|russian federation|` +
  [
    'afghanistan|albania|algeria|andorra|angola|argentina|armenia|australia|austria|azerbaijan|bahamas',
    'bahrain|bangladesh|barbados|belarus|belgium|belize|benin|bhutan|bolivia|bosnia and herzegovina',
    'botswana|brazil|brunei|bulgaria|burkina faso|burundi|cabo verde|cape verde|cambodia|cameroon|canada',
    'central african republic|chad|chile|china|colombia|comoros|congo|costa rica|côte d.ivoire',
    'ivory coast|croatia|cuba|cyprus|czech republic|czechia|denmark|djibouti|dominica|dominican republic',
    'ecuador|egypt|el salvador|equatorial guinea|eritrea|estonia|eswatini|ethiopia|fiji|finland|france',
    'gabon|gambia|georgia|germany|ghana|greece|grenada|guatemala|guinea-bissau|guinea|guyana|haiti',
    'honduras|hungary|iceland|india|indonesia|iran|iraq|ireland|israel|italy|jamaica|japan|jordan',
    'kazakhstan|kenya|kiribati|kosovo|kuwait|kyrgyzstan|laos|latvia|lebanon|lesotho|liberia|libya',
    'liechtenstein|lithuania|luxembourg|madagascar|malawi|malaysia|maldives|mali|malta|marshall islands',
    'mauritania|mauritius|mexico|micronesia|moldova|monaco|mongolia|montenegro|morocco|mozambique',
    'myanmar|namibia|nauru|nepal|netherlands|new zealand|nicaragua|nigeria|niger|north korea',
    'north macedonia|macedonia|norway|oman|pakistan|palau|palestine|palestinian authority|panama',
    'papua new guinea|paraguay|peru|philippines|poland|portugal|qatar|romania|russia|rwanda',
    'saint kitts and nevis|saint lucia|saint vincent and the grenadines|samoa|san marino',
    'são tomé and príncipe|sao tome and principe|saudi arabia|senegal|serbia|seychelles|sierra leone',
    'singapore|slovakia|slovenia|solomon islands|somalia|south africa|south korea|korea|south sudan|spain',
    'sri lanka|sudan|suriname|sweden|switzerland|syria|taiwan|tajikistan|tanzania|thailand|timor-leste',
    'east timor|togo|tonga|trinidad and tobago|tunisia|turkey|türkiye|turkmenistan|tuvalu|uganda|ukraine',
    'uruguay|uzbekistan|vanuatu|venezuela|vietnam|viet nam|yemen|zambia|zimbabwe',
  ].join('|') +
  // …but not a company named after its country ("president of China Mobile", "of Japan Airlines", "of
  // Ukraine's largest bank", "of Georgia Tech").
  String.raw`)(?!['’]s\b|\s+(?:tech|state|mobile|airlines?|airways|telecom|telecommunications|steel|bank|electric|electronics|petroleum|oil|gas|post|railways?|motors?|inc|corp|corporation|ltd|limited|group|holdings?|energy|power|construction|investment|development|foundation|association|society|federation|club|university|college|chamber|league)\b)`;

/**
 * Offices whose holders are politicians (or, for compliance, politically exposed). Words shared with
 * other trades are narrowed: a brand or goodwill ambassador, a church minister, a university's
 * chancellor and the Premier League hold no office.
 */
const OFFICE =
  String.raw`(?:prime minister|deputy prime minister|(?<!(?:church|parish|methodist|baptist|lutheran|anglican|presbyterian|evangelical|pentecostal|ordained|united reformed) )minister|` +
  String.raw`secretary of state|member of parliament|\bmp\b|\bmep\b|` +
  String.raw`member of the european parliament|senator|congressman|congresswoman|congressional representative|` +
  String.raw`deputy mayor|mayor|councillor|councilor|city council member|governor|${PRESIDENT_OF}|` +
  String.raw`head of state|head of government|(?<!(?:brand|goodwill|global|campaign) )ambassador|lawmaker|legislator|parliamentarian|` +
  String.raw`chancellor(?! of (?:the )?(?:[\p{L}-]+ )?(?:university|college|school))|` +
  String.raw`party leader|leader of the (?:\w+ )?party|opposition leader|state secretary|premier(?! league| division)|politician)`;

/**
 * "Was elected" alone says office, but not when it is to a board, a learned society, a hall of fame, a
 * club's chair or a sports award ("was elected a Fellow of the Royal Society", "was elected to the board",
 * "was elected Player of the Year").
 */
const NOT_AN_ELECTED_OFFICE = String.raw`(?! (?:to (?:the |its |a |an )?(?:[\p{L}-]+ ){0,4}(?:board|academy|society|hall of fame|committee)|(?:as )?(?:a |an |the )?(?:fellow|director|trustee|chair|chairman|chairwoman|chairperson|captain|player|athlete|footballer|sportsman|sportswoman|rookie|coach|mvp|best|most valuable|member of (?:the |its )?(?:[\p{L}-]+ )?(?:academy|society|board)|president of (?:the |its )?(?:[\p{L}-]+ ){0,3}?(?:club|union|society|association|company|board|academy|foundation|federation|institute|league|university|college))))`;

/** The words of a conviction, an arrest or a charge, after a passive auxiliary. */
const CONVICTION = String.raw`(?:convicted|sentenced|jailed|imprisoned|arrested|detained|charged|indicted|extradited)`;

/**
 * Up to three words between "is"/"the" and an office ("the former finance minister"), but none that make
 * the office someone else's: "the wife of the mayor", "an adviser to the prime minister", "is married to
 * the mayor" name the mayor's relation or staff, who holds no office.
 */
const WORDS_BEFORE_OFFICE = String.raw`(?:(?!(?:wife|husband|widow|widower|son|daughter|mother|father|brother|sister|child|partner|fianc\p{L}*|girlfriend|boyfriend|friend|married|adviser|advisor|aide|assistant|spokesman|spokeswoman|spokesperson|secretary|driver|bodyguard|lawyer|critic|opponent|rival|of|to|for|with)\b)[\p{L}-]+ ){0,3}`;

/** What someone is "charged with" when it is a task, not a crime. */
const A_TASK = String.raw`(?:the |a |an )?(?:task|responsibility|duty|job|mission|role|overseeing|leading|running|managing|organi[sz]ing|coordinating|developing|implementing|ensuring|investigating|reviewing|drafting|preparing|protecting|delivering|building|finding)\b`;

const RULES: Rule[] = [
  {
    flag: 'politician',
    after: new RegExp(
      // An apposition right after the name (", the mayor of…", ", who was elected mayor") or a verb
      // of being or becoming followed by the office within three words.
      String.raw`^\s*(?:\([^)]*\)\s*)?,\s*(?:the |a |an |who is |who was |who has been |who became |who serves as )?${WORDS_BEFORE_OFFICE}${OFFICE}\b|` +
        String.raw`\b(?:is|was|has been|had been|became|becomes|serves as|served as|elected|re-elected|appointed|named|sworn in as)\s+(?:the |a |an )?${WORDS_BEFORE_OFFICE}?${OFFICE}\b|` +
        String.raw`\b(?:was|were|has been|is) (?:re-)?elected\b${NOT_AN_ELECTED_OFFICE}|\bwon (?:the|a) (?:seat|election)\b`,
      'iu',
    ),
    before: new RegExp(String.raw`\b${OFFICE}\s*$`, 'i'),
    negation:
      /\b(?:not|never|no longer|failed to (?:win|be elected)|lost (?:the|her|his) (?:seat|election)|candidate)\b/i,
  },
  {
    flag: 'criminal',
    after: new RegExp(
      // Passive forms only: "Cole sentenced Hale" says nothing against Cole. Words with other senses need
      // their criminal one: "charged with" a crime, not with a task; a "most wanted" list, not a "most
      // wanted free agent"; someone who is a fugitive, not a detective who tracked one.
      [
        String.raw`(?:was|were|been|being|is|are|got) (?:\w+ )?${CONVICTION}(?! with ${A_TASK})`,
        String.raw`(?:later|subsequently) ${CONVICTION} (?:of|for|to|in|on|over|after|by|with)`,
        String.raw`convicted (?:of|for)|found guilty|pleaded guilty|pled guilty|sentenced to|jailed for`,
        String.raw`charged with(?! ${A_TASK})`,
        String.raw`wanted (?:by|for|in)|on (?:interpol's|the fbi's|a) (?:most )?wanted`,
        String.raw`most wanted (?:list|fugitives?|criminals?|m[ae]n|wom[ae]n|persons?|people|suspects?)`,
        String.raw`(?:is|was|are|were|been|became|becomes|remains|remained) (?:a |an |the )?(?:\w+ )?fugitive|fugitive from`,
        String.raw`(?:is|was|are|were|been|remains|remained|went) on the run`,
        String.raw`warrant (?:was issued )?for (?:his|her|their) arrest`,
        String.raw`(?:subject of|wanted on|wanted under) an? (?:\w+ )?arrest warrant`,
        String.raw`arrest warrant (?:was |has been |had been )?(?:issued )?(?:for|against) (?:him|her|them)`,
        String.raw`serving (?:a )?(?:\w+[- ])?(?:year|month)s? (?:prison )?sentence`,
        String.raw`(?:is|was|are|were|been|remains|remained|years|months|life|time) behind bars|red notice`,
      ]
        .map((form) => String.raw`\b(?:${form})\b`)
        .join('|'),
      'i',
    ),
    // "Convicted fraudster Tom Reed", "The court jailed Tom Reed"; "most wanted", not "the coach wanted".
    before:
      /\b(?:convicted|most[- ]wanted|jailed|fugitive|fraudster|murderer|drug lord|gangster|mob boss|crime boss)\s*$/i,
    negation: /\b(?:not|never|no|innocent|falsely|wrongly)\b/i,
    reversal:
      /\b(?:acquitted|cleared|exonerated|overturned|quashed|dropped|withdrawn|without charge|released without)\b/i,
  },
  {
    flag: 'sanctions',
    after: new RegExp(
      // The subject under sanctions, not the official announcing them ("announced an asset freeze", "the
      // Treasury has sanctioned three banks") nor a critic of them ("criticised the travel ban").
      [
        String.raw`(?:was|were|is|are|been|being|got) (?:\w+ )?(?:sanctioned|blacklisted)|sanctioned by`,
        String.raw`under (?:\w+ ){0,2}sanctions|sanctions (?:list |designation )?against (?:him|her|them)`,
        String.raw`(?:placed|put|added|included|listed) (?:on|to|in) (?:a|the|an) (?:\w+ ){0,2}sanctions? list|on (?:a|the|an) (?:\w+ ){0,2}sanctions? list`,
        String.raw`designated (?:by (?:the )?(?:ofac|us treasury|treasury|eu|un|uk|state department)|under (?:\w+ ){0,3}(?:order|act|regulations?|sanctions?|program(?:me)?)|as an? (?:specially designated|global terrorist|terrorist))`,
        String.raw`(?:his|her|their) assets (?:were |have been |had been |are |was )?frozen|assets (?:were|have been|had been|are) frozen`,
        String.raw`(?:subject to|faces|faced|facing|hit with|hit by) (?:an? )?(?:\w+ )?(?:asset freeze|travel ban|sanctions)`,
        String.raw`specially designated national|(?:on|to) (?:the )?(?:ofac'?s? )?(?:sdn|specially designated nationals) list`,
      ]
        .map((form) => String.raw`\b(?:${form})\b`)
        .join('|'),
      'i',
    ),
    // "The EU has sanctioned Bulgarian businessman Viktor Draganov": the object of the verb.
    before: /\b(?:sanctioned|blacklisted)(?:\s+[\p{L}-]+){0,2}\s*$/iu,
    negation: /\b(?:not|never|no longer)\b/i,
    reversal: /\b(?:lifted|delisted|removed from|unfrozen|overturned|annulled|struck down)\b/i,
  },
];

/** Sentences of a text (a line break also ends one; abbreviations like "Dr." and initials do not). */
const sentenceCache = new Map<string, string[]>();

export function sentencesOf(text: string): string[] {
  const cached = sentenceCache.get(text);
  if (cached) return cached;
  const sentences = splitSentences(text);
  // Each page's texts are read once per person named on it: keep the last few splits.
  if (sentenceCache.size >= 64) sentenceCache.delete(sentenceCache.keys().next().value!);
  sentenceCache.set(text, sentences);
  return sentences;
}

const foldedCache = new Map<string, { sentence: string; folded: string }[]>();

function foldedSentencesOf(text: string): { sentence: string; folded: string }[] {
  const cached = foldedCache.get(text);
  if (cached) return cached;
  const folded = sentencesOf(text).map((sentence) => ({ sentence, folded: foldText(sentence) }));
  if (foldedCache.size >= 64) foldedCache.delete(foldedCache.keys().next().value!);
  foldedCache.set(text, folded);
  return folded;
}

function splitSentences(text: string): string[] {
  const protectedText = text.replace(
    /\b(Mr|Mrs|Ms|Dr|Prof|St|Sen|Rep|Gov|Gen|Col|Capt|Rev|Hon|Jr|Sr|No|vs|Inc|Ltd|Co|[A-Z])\./g,
    '$1\u2063',
  );
  return protectedText
    .split(/(?<=[.!?])["”’)]?\s+(?=["“‘(]?[\p{Lu}\d])|\n+/u)
    .map((s) => s.replace(/\u2063/g, '.').trim())
    .filter((s) => s.length > 0);
}

/** A person as evidence looks for them: full name tokens and the surname. */
export interface EvidenceSubject {
  name: string;
  tokens: string[];
}

export function subjectOf(name: string): EvidenceSubject {
  return { name, tokens: nameTokens(name) };
}

interface Mention {
  start: number;
  end: number;
}

/**
 * Where a sentence names the subject: the full name, or the surname alone (any case of accents).
 * `relatives` are the given names of the other people of the page who share the subject's surname:
 * "Hunter Biden" is not a mention of Joe Biden, even as the sentence's first words.
 */
function mentionsOf(sentence: string, subject: EvidenceSubject, relatives: string[] = []): Mention[] {
  const surname = subject.tokens[subject.tokens.length - 1];
  if (!surname) return [];
  const mentions: Mention[] = [];
  // Compare on folded words; keep the character positions of the original sentence.
  const words = [...sentence.matchAll(/[\p{L}\p{N}'’-]+/gu)];
  for (let i = 0; i < words.length; i++) {
    const written = words[i]![0];
    const word = foldText(written.replace(/['’]s$/u, ''));
    if (word !== surname && word.replace(/ /g, '') !== surname.replace(/ /g, '')) continue;
    // A name is written with a capital where the script has them: "black market" names no Jack Black.
    if (/^\p{Ll}/u.test(written)) continue;
    // Start the mention at the first name when it is written before the surname.
    let startWord = i;
    for (let back = 1; back <= 3 && i - back >= 0; back++) {
      const previous = foldText(words[i - back]![0]);
      if (
        subject.tokens.includes(previous) ||
        (previous.length === 1 && subject.tokens.some((t) => t[0] === previous))
      )
        startWord = i - back;
      else break;
    }
    // The surname after another capitalised word that is no title is another person of the same family
    // ("Her brother Peter Dunn was convicted" names Peter, not Helen Dunn). The sentence's first word is
    // left alone: it is capitalised anyway.
    if (startWord === i && i >= 1) {
      const previous = words[i - 1]!;
      const between = sentence.slice(previous.index + previous[0].length, words[i]!.index);
      const partOfOneName = /^\s+$/u.test(between); // "Peter Dunn", not "On Friday, Dunn"
      const previousFolded = foldText(previous[0]);
      if (partOfOneName && relatives.includes(previousFolded)) continue;
      if (
        i >= 2 &&
        partOfOneName &&
        /^\p{Lu}/u.test(previous[0]) &&
        !TITLES_BEFORE_NAMES.includes(previousFolded)
      )
        continue;
    }
    const start = words[startWord]!.index;
    mentions.push({ start, end: words[i]!.index + words[i]![0].length });
  }
  return mentions;
}

/**
 * Evidence sentences about one person in the given texts (page text, caption, nearby text). `others`
 * are the other people named on the page: a clause about one of them ends the subject's part.
 */
export function findEvidence(
  texts: { text: string; url: string | null }[],
  subject: EvidenceSubject,
  others: EvidenceSubject[],
): FlagEvidence[] {
  const found: FlagEvidence[] = [];
  const seen = new Set<string>();
  const subjectSurname = subject.tokens[subject.tokens.length - 1];
  // The others of the page as the words that name them: their surname, or, for a relative who shares
  // the subject's, their given name ("Jane Dunn, whose father Peter Dunn was jailed").
  const relatives = others
    .filter((o) => o.tokens.length >= 2 && o.tokens.at(-1) === subjectSurname)
    .map((o) => o.tokens[0]!)
    .filter((given) => !subject.tokens.includes(given));
  const otherSurnames = [
    ...others
      .map((o) => o.tokens[o.tokens.length - 1])
      .filter((s): s is string => !!s && s !== subjectSurname),
    ...relatives,
  ];
  for (const { text, url } of texts) {
    const surname = subject.tokens[subject.tokens.length - 1] ?? '';
    for (const { sentence, folded } of foldedSentencesOf(text)) {
      // Cheap test first: most sentences of a long page do not name the subject at all.
      if (!surname || !folded.includes(surname)) continue;
      const mentions = mentionsOf(sentence, subject, relatives);
      if (mentions.length === 0) continue;
      for (const rule of RULES) {
        const key = `${rule.flag}|${sentence}`;
        if (seen.has(key)) continue;
        if (mentions.some((m) => statesFlag(sentence, m, rule, otherSurnames))) {
          seen.add(key);
          found.push({ flag: rule.flag, source: 'page', text: sentence.slice(0, 500), url });
        }
      }
    }
  }
  return found;
}

/** The subject's part of the sentence after a mention: up to the next other person named, capped. */
function clauseAfter(sentence: string, mention: Mention, otherSurnames: string[]): string {
  let clause = sentence.slice(mention.end, mention.end + 220);
  // What the subject says, announces or criticises is about others ("announced that the UK had
  // sanctioned 15 officials", "said the suspect was arrested"), and so is a clause about their relatives
  // or staff ("whose brother was convicted").
  const reported = REPORTED_OR_RELATED.exec(clause);
  if (reported) clause = clause.slice(0, reported.index);
  const words = [...clause.matchAll(/[\p{L}\p{N}'’-]+/gu)];
  for (const w of words) {
    if (otherSurnames.includes(foldText(w[0]))) {
      // Stop before the other person's name (and the first name just before it), and before the words
      // that lead to them: "who met sanctioned businessman Viktor Draganov" says nothing of the subject
      // after "met".
      const cut = clause.slice(0, w.index).replace(/[\p{Lu}][\p{L}'’-]*\s*$/u, '');
      const lead = [...cut.matchAll(LEADS_TO_ANOTHER)].at(-1);
      clause = lead ? cut.slice(0, lead.index) : cut;
      break;
    }
  }
  return clause;
}

const REPORTED_OR_RELATED = new RegExp(
  // A verb of saying in the active voice: "was added to the list", "was declared a fugitive" stay.
  String.raw`(?<!\b(?:was|were|is|are|be|been|being|got) (?:\w+ )?)\b(?:said|says|say|announced|announces|told|tells|added|adds|stated|states|declared|declares|` +
    String.raw`warned|warns|confirmed|confirms|explained|explains|noted|notes|claimed|claims|argued|argues|insisted|` +
    String.raw`criticised|criticized|criticises|criticizes|condemned|condemns|welcomed|welcomes|praised|praises|urged|urges|` +
    String.raw`wrote|writes|reported|reports|testified|testifies|revealed|reveals|alleged|alleges|according)\b|` +
    String.raw`\bwhose (?:\w+ )?(?:wife|husband|widow|son|daughter|mother|father|brother|sister|child|children|parents?|partner|family|relatives?|cousin|uncle|aunt|nephew|niece|friend|associate|colleague|lawyer|client|company|firm|employer|employee|driver|bodyguard)\b`,
  'i',
);

/** Words that lead from the subject to another person named after them in a clause. */
const LEADS_TO_ANOTHER =
  /\s(?:met|meets|meeting|with|and|alongside|beside|joined|joins|helped|helps|told|against|by|of|for|to|caught|catch|married|marries|welcomed|welcomes|hosted|hosts|visited|visits|accompanied|greeted|greets)\s/giu;

function statesFlag(sentence: string, mention: Mention, rule: Rule, otherSurnames: string[]): boolean {
  const before = sentence.slice(Math.max(0, mention.start - 60), mention.start);
  const beforeWords = before.split(/\s+/).slice(-4).join(' ');
  const clause = clauseAfter(sentence, mention, otherSurnames);
  if (rule.reversal?.test(clause)) return false;
  if (rule.before && rule.before.test(beforeWords.replace(/[,:]\s*$/, ''))) {
    return !rule.negation.test(beforeWords);
  }
  const hit = rule.after.exec(clause);
  if (!hit) return false;
  // A negation before the statement or inside it, in the same clause, cancels it ("was not charged"); one
  // after it is about something else ("was convicted of fraud and did not appeal").
  return !rule.negation.test(clause.slice(0, hit.index + hit[0].length));
}

/** Whether a sentence names the person (full name, or the surname written as a name). */
export function namesSubject(sentence: string, subject: EvidenceSubject): boolean {
  return mentionsOf(sentence, subject).length > 0;
}

/** One line of a description: the sentence of the page that says who the person is. */
export function describingSentence(texts: string[], subject: EvidenceSubject): string {
  for (const text of texts) {
    for (const sentence of sentencesOf(text)) {
      if (namesSubject(sentence, subject) && sentence.length >= 20) return sentence.slice(0, 300);
    }
  }
  return '';
}
