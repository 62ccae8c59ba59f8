import { describe, expect, it } from 'vitest';
import type { ResultInput } from '../../src/extractor/analysis-types.ts';
import {
  candidatesForPicture,
  findPersonNames,
  peopleOfResult,
  sameNameVariant,
} from '../../src/extractor/names.ts';
import { nameTokens } from '../../src/extractor/name-match.ts';

const names = (text: string) => findPersonNames(text).names.map((n) => n.name);

function result(parts: {
  caption?: string;
  alt?: string;
  title?: string;
  text?: string;
  nearby?: string;
}): ResultInput {
  return {
    key: 'r1',
    page: { url: 'http://site.test/a', title: parts.title ?? '', text: parts.text ?? '' },
    image: {
      imageUrl: 'http://site.test/a.jpg',
      alt: parts.alt ?? '',
      caption: parts.caption ?? '',
      nearbyText: parts.nearby ?? '',
    },
    similarity: 0.9,
    crawledAt: new Date('2024-01-01'),
  };
}

describe('a caption that says who stands where', () => {
  const festival = {
    caption: 'Festival organisers Priya Anand (left) and Jo Whitcombe with Mayor Helena Marsh (right).',
    text: 'Mayor Helena Marsh opened the Riverside festival. Helena Marsh thanked the organisers.',
  };
  const candidates = (facePosition?: 'left' | 'centre' | 'right') =>
    candidatesForPicture(peopleOfResult({ ...result(festival), facePosition })).map((p) => p.name);

  it('names the face by its place in the photo, never the people placed elsewhere', () => {
    expect(candidates('centre')).toEqual(['Jo Whitcombe']);
    expect(candidates('left')).toEqual(['Priya Anand', 'Jo Whitcombe']);
    expect(candidates('right')[0]).toBe('Helena Marsh');
    expect(candidates('right')).not.toContain('Priya Anand');
  });

  it('without a known place (a face alone, or no box), everyone the caption names is a candidate', () => {
    expect(candidates(undefined).sort()).toEqual(['Helena Marsh', 'Jo Whitcombe', 'Priya Anand']);
  });
});

describe('captions in agency style', () => {
  const candidatesAt = (caption: string, facePosition?: 'left' | 'centre' | 'right') =>
    candidatesForPicture(peopleOfResult({ ...result({ caption }), facePosition })).map((p) => p.name);

  it('reads "(L)", "(R)" and "(C)" after a name as its place', () => {
    const caption = 'Priya Anand (L) talks to Jo Whitcombe (R) at the festival.';
    expect(candidatesAt(caption, 'left')).toEqual(['Priya Anand']);
    expect(candidatesAt(caption, 'right')).toEqual(['Jo Whitcombe']);
  });

  it('places the people of a list "from left" or "left to right" in their order', () => {
    for (const caption of [
      'From left: Priya Anand, Jo Whitcombe and Helena Marsh at the opening.',
      'Priya Anand, Jo Whitcombe and Helena Marsh (from left) at the opening.',
      'The opening. Left to right: Priya Anand, Jo Whitcombe, Helena Marsh.',
      'L-R: Priya Anand, Jo Whitcombe and Helena Marsh.',
    ]) {
      expect(candidatesAt(caption, 'left'), caption).toEqual(['Priya Anand']);
      expect(candidatesAt(caption, 'centre'), caption).toEqual(['Jo Whitcombe']);
      expect(candidatesAt(caption, 'right'), caption).toEqual(['Helena Marsh']);
    }
    // Without the face's place, everyone listed is a candidate.
    expect(candidatesAt('From left: Priya Anand and Jo Whitcombe.').sort()).toEqual([
      'Jo Whitcombe',
      'Priya Anand',
    ]);
  });

  it('does not take the photographer a caption credits for someone in the photo', () => {
    expect(candidatesAt('Crowds gather outside parliament. Photo: John Smith/Reuters')).toEqual([]);
    expect(candidatesAt('Maria Ressa in Manila. Picture: Ted Aljibe/AFP')).toEqual(['Maria Ressa']);
    expect(candidatesAt('Maria Ressa in Manila (Ted Aljibe/AFP).')).toEqual(['Maria Ressa']);
    expect(candidatesAt('Maria Ressa in Manila. Photographed by Ted Aljibe.')).toEqual(['Maria Ressa']);
    // A photo of someone names them.
    expect(candidatesAt('Photo of Maria Ressa in Manila.')).toEqual(['Maria Ressa']);
  });

  it('does not take a relation named in the caption for someone in the photo', () => {
    expect(candidatesAt('Helena Marsh, wife of Peter Dunn, at the gala.')).toEqual(['Helena Marsh']);
    expect(candidatesAt('Jo Whitcombe, the son of the late Carl Whitcombe, in 2019.')).toEqual([
      'Jo Whitcombe',
    ]);
    // Both pictured: "and her husband".
    expect(candidatesAt('Helena Marsh and her husband Peter Dunn at the gala.').sort()).toEqual([
      'Helena Marsh',
      'Peter Dunn',
    ]);
  });
});

describe('person names in text', () => {
  it('finds names after titles and in lists, and cuts the titles off', () => {
    expect(
      names('Festival organisers Priya Anand (left) and Jo Whitcombe with Mayor Helena Marsh (right).'),
    ).toEqual(['Priya Anand', 'Jo Whitcombe', 'Helena Marsh']);
    expect(names('Managing director Carla Mendes said the company had grown.')).toEqual(['Carla Mendes']);
    expect(names('On Monday Sarah Connor left New York.')).toEqual(['Sarah Connor']);
  });

  it('cuts off a title with the words that qualify it, wherever it stands in the run', () => {
    expect(names('Russian Foreign Minister Sergei Lavrov arrives in Ankara.')).toEqual(['Sergei Lavrov']);
    expect(names('Foreign Minister Sergei Lavrov spoke.')).toEqual(['Sergei Lavrov']);
    expect(names('Supreme Leader Ali Khamenei spoke.')).toEqual(['Ali Khamenei']);
    expect(names('Defence Secretary John Healey visited the base.')).toEqual(['John Healey']);
    // A title word that ends the run may be a surname.
    expect(names('Stephen King and Billie Jean King signed books.')).toEqual([
      'Stephen King',
      'Billie Jean King',
    ]);
  });

  it('cuts off the same titles that name comparison ignores, abbreviated or in other languages', () => {
    expect(names('Gen. Ivan Petrov met Herr Dieter Vogt and Madame Claire Dubois in Geneva.')).toEqual([
      'Ivan Petrov',
      'Dieter Vogt',
      'Claire Dubois',
    ]);
  });

  it('keeps accents, hyphens, particles and initials', () => {
    expect(names('José Álvarez-Núñez met Dr. Søren Ødegaard, H. Marsh and Jean-Luc de la Fontaine.')).toEqual(
      ['José Álvarez-Núñez', 'Søren Ødegaard', 'H. Marsh', 'Jean-Luc de la Fontaine'],
    );
  });

  it('drops organisations, places, dates and capitalised sentence starts', () => {
    expect(
      names(
        'Northwind Logistics Ltd will open a depot. The Riverton Civic Party met at Riverton Crown Court on Quarry Road. ' +
          'Breaking News from the Ashvale Chamber of Commerce. Monday January Report.',
      ),
    ).toEqual([]);
  });

  it('takes a kind of business before or inside a run, and a headline opening, as no person', () => {
    // The digest's headline and its home-page teaser (server/src/demo/demo-content.ts).
    expect(names('Haulier Northwind expands into Ashvale')).toEqual([]);
    expect(names('Latest — Haulier Northwind expands into Ashvale 2024-06-12')).toEqual([]);
    expect(names('Home | Haulier Northwind expands into Ashvale')).toEqual([]);
    expect(names('Haulier Northwind said on Monday that it would grow.')).toEqual([]);
    expect(names('The depot of Northwind Haulage opens in May.')).toEqual([]);
    expect(
      names('Drivers of the haulier Northwind Express and the logistics company Valley Freight met.'),
    ).toEqual([]);
    // A known first name after such a word is still a person; so is a name after a dash.
    expect(names('It is the company Carla Mendes founded in 2009.')).toEqual(['Carla Mendes']);
    expect(names('Latest — Carla Mendes opens the new depot')).toEqual(['Carla Mendes']);
    const teaser = peopleOfResult(
      result({
        alt: 'Northwind Logistics director and the mayor',
        nearby: 'Latest — Haulier Northwind expands into Ashvale 2024-06-12',
        title: 'Home — Valley Daily Digest',
        text: 'Latest Haulier Northwind expands into Ashvale 2024-06-12 Riverton round-up: festival season begins',
      }),
    );
    expect(teaser.map((p) => p.name)).toEqual([]);
  });

  it('reads a courtesy title before a single word as a surname', () => {
    const found = findPersonNames('"It is good," said Ms Marsh.');
    expect(found.names).toEqual([]);
    expect(found.surnames.map((s) => s.name)).toEqual(['Marsh']);
  });
});

describe('people of a page', () => {
  it('merges variants of one name and weights the caption highest', () => {
    const people = peopleOfResult(
      result({
        caption: 'Helena Marsh at the launch.',
        title: 'Festival opens',
        text: 'Mayor Helena Marsh opened the festival. H. Marsh thanked Priya Anand. "Thank you," said Ms Marsh.',
      }),
    );
    expect(people.map((p) => p.name)).toEqual(['Helena Marsh', 'Priya Anand']);
    expect([...people[0]!.variants]).toEqual(['Helena Marsh', 'H. Marsh']);
    expect(people[0]!.sources.has('caption')).toBe(true);
    expect(people[0]!.score).toBeGreaterThan(people[1]!.score);
  });

  it('tells apart people who share a first name', () => {
    expect(sameNameVariant(nameTokens('Jo Whitcombe'), nameTokens('Jo Whitfield'))).toBe(false);
    expect(sameNameVariant(nameTokens('H. Marsh'), nameTokens('Helena Marsh'))).toBe(true);
  });
});
