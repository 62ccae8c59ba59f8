import { describe, expect, it } from 'vitest';
import { findEvidence, sentencesOf, subjectOf } from '../../src/extractor/evidence.ts';

const flagsFor = (text: string, name: string, others: string[] = []) =>
  findEvidence([{ text, url: 'http://site.test/p' }], subjectOf(name), others.map(subjectOf)).map(
    (e) => e.flag,
  );

describe('sentences', () => {
  it('splits on sentence ends but not on titles or initials', () => {
    expect(sentencesOf('Dr. Ann Lee met H. J. Marsh. She left.\nNew line here')).toEqual([
      'Dr. Ann Lee met H. J. Marsh.',
      'She left.',
      'New line here',
    ]);
  });
});

describe('page evidence', () => {
  it('finds offices before the name, in apposition and after a verb', () => {
    expect(flagsFor('Minister Amelia Okafor opened the bridge.', 'Amelia Okafor')).toEqual(['politician']);
    expect(flagsFor('Helena Marsh has been Mayor of Riverton since 2021.', 'Helena Marsh')).toEqual([
      'politician',
    ]);
    expect(flagsFor('"We will," said Ms Marsh, who was elected mayor in 2021.', 'Helena Marsh')).toEqual([
      'politician',
    ]);
    expect(flagsFor('Ravi Menon, a senator from the north, spoke.', 'Ravi Menon')).toEqual(['politician']);
  });

  it('reads "president of" as an office only for a state or a legislature', () => {
    expect(flagsFor('Lena Brandt, the president of Microsoft, spoke.', 'Lena Brandt')).toEqual([]);
    expect(flagsFor('Lena Brandt was president of the chess club.', 'Lena Brandt')).toEqual([]);
    expect(flagsFor('Lena Brandt has been president of China Mobile since 2019.', 'Lena Brandt')).toEqual([]);
    expect(flagsFor('Lena Brandt was president of the Royal Society.', 'Lena Brandt')).toEqual([]);
    expect(flagsFor('Lena Brandt, President of France, spoke.', 'Lena Brandt')).toEqual(['politician']);
    expect(flagsFor('Lena Brandt was elected president of the Republic in 2017.', 'Lena Brandt')).toEqual([
      'politician',
    ]);
    expect(flagsFor('Lena Brandt became President of the European Commission.', 'Lena Brandt')).toEqual([
      'politician',
    ]);
  });

  it('raises no office for trades that share its words', () => {
    const none = [
      'Lena Brandt was named Premier League player of the month.',
      'Lena Brandt, a brand ambassador for Rolex, smiled.',
      'Lena Brandt became a goodwill ambassador of UNICEF in 2015.',
      'Lena Brandt was a Methodist minister in Leeds.',
      'Lena Brandt was appointed chancellor of the University of Leeds.',
      'Lena Brandt was elected a Fellow of the Royal Society in 2004.',
      'Lena Brandt was elected to the board of the bank.',
      'Lena Brandt was elected president of the student union.',
      'Lena Brandt was elected Player of the Year.',
      'Lena Brandt was elected to the Rock and Roll Hall of Fame.',
    ];
    for (const text of none) expect(flagsFor(text, 'Lena Brandt'), text).toEqual([]);
    expect(flagsFor('Lena Brandt was elected in 2019.', 'Lena Brandt')).toEqual(['politician']);
    expect(flagsFor('Lena Brandt was appointed ambassador to Spain.', 'Lena Brandt')).toEqual(['politician']);
    expect(flagsFor('Lena Brandt, the premier of Ontario, spoke.', 'Lena Brandt')).toEqual(['politician']);
    expect(flagsFor('Lena Brandt became chancellor of Germany.', 'Lena Brandt')).toEqual(['politician']);
    expect(flagsFor('Lena Brandt was the finance minister.', 'Lena Brandt')).toEqual(['politician']);
  });

  it('does not flag the official who announces or criticises sanctions, or reports an arrest', () => {
    const none: [string, string][] = [
      [
        'Foreign Secretary David Lammy announced that the UK had sanctioned 15 Russian officials.',
        'David Lammy',
      ],
      ['Janet Yellen said the Treasury has sanctioned three Iranian banks.', 'Janet Yellen'],
      ['Janet Yellen announced an asset freeze on the oligarchs.', 'Janet Yellen'],
      ['Jane Smith criticised the travel ban.', 'Jane Smith'],
      ['Jane Smith, a former OFAC official, spoke.', 'Jane Smith'],
      ['Jane Smith was designated as team captain.', 'Jane Smith'],
      ['Police spokesman John Smith said the suspect was arrested on Tuesday.', 'John Smith'],
      ['Detective Inspector Jane Doe said two men had been charged with murder.', 'Jane Doe'],
      ['Judge Martin Cole later sentenced the man to ten years.', 'Martin Cole'],
      ['Judge Anna Berg issued an arrest warrant for the businessman.', 'Anna Berg'],
    ];
    for (const [text, name] of none) expect(flagsFor(text, name), text).toEqual([]);
    // The subject under sanctions or arrested still is.
    expect(flagsFor('Viktor Draganov was later convicted of fraud.', 'Viktor Draganov')).toEqual([
      'criminal',
    ]);
    expect(flagsFor('Viktor Draganov has been under EU sanctions since 2022.', 'Viktor Draganov')).toEqual([
      'sanctions',
    ]);
    expect(flagsFor('Viktor Draganov faces a travel ban.', 'Viktor Draganov')).toEqual(['sanctions']);
    expect(flagsFor('Viktor Draganov was added to the OFAC sanctions list.', 'Viktor Draganov')).toEqual([
      'sanctions',
    ]);
  });

  it('reads crime words in their criminal sense only', () => {
    const none = [
      'Anna Berg, who is charged with overseeing the budget, spoke.',
      'Anna Berg is the most wanted free agent this summer.',
      'Anna Berg, whose evidence helped put the gang behind bars, spoke.',
      'Detective Anna Berg tracked the fugitive for years.',
      'The coach wanted Anna Berg in the starting line-up.',
    ];
    for (const text of none) expect(flagsFor(text, 'Anna Berg'), text).toEqual([]);
    for (const text of [
      'Anna Berg was charged with money laundering.',
      'Anna Berg is on the FBI most wanted list.',
      'Anna Berg has been behind bars since 2019.',
      'Anna Berg is a fugitive from justice.',
      'Police named the most wanted Anna Berg.',
    ])
      expect(flagsFor(text, 'Anna Berg'), text).toEqual(['criminal']);
  });

  it("does not give a relative's or an employer's office or conviction to the person", () => {
    expect(
      flagsFor('Hunter Biden was convicted of gun charges in June.', 'Joe Biden', ['Hunter Biden']),
    ).toEqual([]);
    expect(
      flagsFor('Jane Dunn, whose father Peter Dunn was jailed in 2015, at the hearing.', 'Jane Dunn', [
        'Peter Dunn',
      ]),
    ).toEqual([]);
    expect(flagsFor('Anna Berg, whose brother was convicted of fraud, spoke.', 'Anna Berg')).toEqual([]);
    for (const text of [
      'Jane Smith, the wife of the mayor, attended the gala.',
      'Jane Smith is the daughter of a senator.',
      'Jane Smith was an adviser to the prime minister.',
      'Jane Smith is married to the mayor of Boston.',
      "Jane Smith is president of Ukraine's largest bank.",
      'Jane Smith is president of Georgia Tech.',
    ])
      expect(flagsFor(text, 'Jane Smith'), text).toEqual([]);
    // The person herself, with the relative named too.
    expect(
      flagsFor('Jane Dunn was convicted of fraud; her father Peter Dunn was not.', 'Jane Dunn', [
        'Peter Dunn',
      ]),
    ).toEqual(['criminal']);
    expect(flagsFor('Jane Smith is the former finance minister.', 'Jane Smith')).toEqual(['politician']);
  });

  it('gives the words that describe another person named in the clause to that person', () => {
    const others = ['Viktor Draganov', 'Helena Marsh', 'Marco Vellini'];
    const about = (text: string) => flagsFor(text, 'Priya Anand', others);
    expect(about('Priya Anand, who met sanctioned businessman Viktor Draganov in 2021, spoke.')).toEqual([]);
    expect(about('Priya Anand, who met Mayor Helena Marsh on Friday, spoke.')).toEqual([]);
    expect(about('Priya Anand helped police catch fugitive Marco Vellini last year.')).toEqual([]);
    // What is said of the subject before the other person still counts.
    expect(about('Priya Anand was arrested with businessman Viktor Draganov in 2021.')).toEqual(['criminal']);
  });

  it('takes a surname for the subject only when written as a name, and not after another first name', () => {
    // Lower case: a word, not the name.
    expect(flagsFor('Traders on the black market were arrested on Friday.', 'Jack Black')).toEqual([]);
    expect(flagsFor('The park was designated as a nature reserve.', 'Nina Park')).toEqual([]);
    // Another person of the same family.
    expect(flagsFor('Her brother Peter Dunn was convicted of fraud in 2010.', 'Helen Dunn')).toEqual([]);
    // The subject herself, by full name, by title and surname, and by surname alone, still counts.
    expect(flagsFor('Helen Dunn was convicted of fraud in 2010.', 'Helen Dunn')).toEqual(['criminal']);
    expect(flagsFor('Police said Mayor Dunn was arrested on Friday.', 'Helen Dunn')).toEqual([
      'politician',
      'criminal',
    ]);
    expect(flagsFor('On Friday, Dunn was arrested.', 'Helen Dunn')).toEqual(['criminal']);
  });

  it('finds convictions, arrests, wanted notices and sanctions, by full name or surname', () => {
    expect(flagsFor('Victor Hale, 52, of Quarry Road, was found guilty of fraud.', 'Victor Hale')).toEqual([
      'criminal',
    ]);
    expect(flagsFor('Police said Vellini is wanted in three countries.', 'Marco Vellini')).toEqual([
      'criminal',
    ]);
    expect(flagsFor('Tom Reed was arrested on Friday.', 'Tom Reed')).toEqual(['criminal']);
    expect(flagsFor('Viktor Draganov was sanctioned by the EU in 2023.', 'Viktor Draganov')).toEqual([
      'sanctions',
    ]);
    expect(flagsFor('The assets of Draganov were frozen.', 'Viktor Draganov')).toEqual([]);
    expect(flagsFor('Draganov has had his assets frozen under an asset freeze.', 'Viktor Draganov')).toEqual([
      'sanctions',
    ]);
  });

  it('reads a possessive as a mention of the person', () => {
    expect(flagsFor('The council approved Mayor Helena Marsh’s plan.', 'Helena Marsh')).toEqual([
      'politician',
    ]);
    expect(flagsFor("Draganov's assets were frozen under an asset freeze.", 'Viktor Draganov')).toEqual([
      'sanctions',
    ]);
  });

  it('raises nothing for negations', () => {
    expect(flagsFor('Tom Reed was acquitted of all charges.', 'Tom Reed')).toEqual([]);
    expect(flagsFor('Tom Reed was not charged.', 'Tom Reed')).toEqual([]);
    expect(flagsFor('Tom Reed was found not guilty of fraud.', 'Tom Reed')).toEqual([]);
    expect(flagsFor('Tom Reed was arrested but released without charge.', 'Tom Reed')).toEqual([]);
    expect(
      flagsFor('Sanctions against Ana Ruiz were lifted; Ruiz is no longer sanctioned.', 'Ana Ruiz'),
    ).toEqual([]);
    expect(flagsFor('Ana Ruiz, a candidate for mayor, spoke.', 'Ana Ruiz')).toEqual([]);
  });

  it('reads a reversal anywhere in the clause, and a denial only before or inside the statement', () => {
    const tom = (text: string) => flagsFor(text, 'Tom Reed');
    expect(
      tom('Tom Reed was arrested in 2019 on suspicion of fraud, but the charges were later dropped.'),
    ).toEqual([]);
    expect(
      tom('Tom Reed was convicted of fraud in 2012, a verdict the court of appeal quashed in 2014.'),
    ).toEqual([]);
    expect(tom('Convicted fraudster Tom Reed, whose conviction was overturned in 2015, spoke.')).toEqual([]);
    expect(
      flagsFor(
        'Ana Ruiz was placed on the EU sanctions list in 2014; the measures against her were lifted.',
        'Ana Ruiz',
      ),
    ).toEqual([]);
    // A "not" after the statement is about something else.
    expect(tom('Tom Reed was convicted of fraud in 2012 and did not appeal.')).toEqual(['criminal']);
    expect(tom('Tom Reed was sentenced to six years, which he does not dispute.')).toEqual(['criminal']);
  });

  it('attaches a statement to the person it is about, not to everyone in the sentence', () => {
    const text = 'Carla Mendes met Mayor Helena Marsh, and Victor Hale was convicted of fraud.';
    const others = ['Helena Marsh', 'Victor Hale'];
    expect(flagsFor(text, 'Carla Mendes', others)).toEqual([]);
    expect(flagsFor(text, 'Helena Marsh', ['Carla Mendes', 'Victor Hale'])).toEqual(['politician']);
    expect(flagsFor(text, 'Victor Hale', ['Carla Mendes', 'Helena Marsh'])).toEqual(['criminal']);
    expect(flagsFor('Judge Martin Cole sentenced Hale.', 'Martin Cole', ['Victor Hale'])).toEqual([]);
  });

  it('keeps the sentence and the page as evidence', () => {
    const evidence = findEvidence(
      [{ text: 'Intro. Viktor Draganov was sanctioned in 2023. Outro.', url: 'http://site.test/p' }],
      subjectOf('Viktor Draganov'),
      [],
    );
    expect(evidence).toEqual([
      {
        flag: 'sanctions',
        source: 'page',
        text: 'Viktor Draganov was sanctioned in 2023.',
        url: 'http://site.test/p',
      },
    ]);
  });
});
