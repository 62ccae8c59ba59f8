// Labelled fictional pages for `npm run bench:extractor`. Every person, company and event is invented.
// Each page says which of its images shows the searched face (`image`, default 0), the name a reader of
// the page would give that face ('' when the page does not say), and the flags the page (or, with
// `watchlist`, the demo watch-list) supports for that person.

export interface LabelledPage {
  id: string;
  kind: string;
  html: string;
  image?: number;
  name: string;
  flags: ('politician' | 'sanctions' | 'criminal')[];
  /** Flags only the demo watch-list gives (the page itself says nothing). */
  watchlistFlags?: ('politician' | 'sanctions' | 'criminal')[];
  /** Written after the extractor's rules were tuned on the other pages, and never tuned on. */
  heldOut?: boolean;
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About</a></nav>
<main>${body}</main><footer><p>© 2024 Example Media Group. All rights reserved.</p></footer></body></html>`;

const article = (title: string, img: string, caption: string, paragraphs: string[], alt = '') =>
  page(
    title,
    `<article><h1>${title}</h1><figure><img src="/img/${img}.jpg" alt="${alt}"><figcaption>${caption}</figcaption></figure>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</article>`,
  );

export const PAGES: LabelledPage[] = [
  {
    id: 'news-minister',
    kind: 'news article',
    html: article(
      'Transport minister opens new rail link',
      'okafor',
      'Minister Amelia Okafor at Riverside station.',
      [
        'The new rail link between Riverton and Ashvale opened on Tuesday.',
        'Amelia Okafor, the transport minister, said the line would cut journey times by half.',
        'Local business owner Tomas Berg welcomed the news.',
      ],
    ),
    name: 'Amelia Okafor',
    flags: ['politician'],
  },
  {
    id: 'news-sanctioned',
    kind: 'news article',
    html: article('EU freezes assets of shipping magnate', 'draganov', 'Viktor Draganov in 2019.', [
      'The European Union has sanctioned Bulgarian businessman Viktor Draganov over his role in a fuel smuggling network.',
      'Draganov, 58, denies any wrongdoing. His lawyer, Petra Ilieva, said he would appeal.',
    ]),
    name: 'Viktor Draganov',
    flags: ['sanctions'],
  },
  {
    id: 'news-wanted',
    kind: 'wanted notice',
    html: article(
      'Police appeal for help to find fugitive',
      'vellini',
      'Marco Vellini, as pictured in a police handout.',
      [
        'Marco Vellini is wanted by police in connection with a series of investment frauds.',
        'Officers urged anyone who sees Vellini not to approach him. Detective Inspector Ruth Osei leads the inquiry.',
      ],
    ),
    name: 'Marco Vellini',
    flags: ['criminal'],
  },
  {
    id: 'profile-mayor',
    kind: 'profile page',
    html: page(
      'Profile: Helena Marsh',
      `<h1>Helena Marsh</h1><img src="/img/marsh.jpg" alt="Portrait of Helena Marsh">
<dl><dt>Role</dt><dd>Mayor of Riverton</dd><dt>Party</dt><dd>Riverton Civic Party</dd></dl>
<p>Helena Marsh has been Mayor of Riverton since 2021. She chairs the planning committee.</p>`,
    ),
    name: 'Helena Marsh',
    flags: ['politician'],
  },
  {
    id: 'profile-ceo',
    kind: 'profile page',
    html: page(
      'Leadership — Northgate Foods',
      `<h1>Our leadership</h1><img src="/img/lind.jpg" alt="Erik Lind">
<h2>Erik Lind, Chief Executive</h2><p>Erik Lind joined Northgate Foods in 2012 and became chief executive in 2019. He previously worked in logistics.</p>`,
    ),
    name: 'Erik Lind',
    flags: [],
  },
  {
    id: 'gallery-captions',
    kind: 'gallery with captions',
    image: 1,
    html: page(
      'Gallery: charity run 2024',
      `<h1>Charity run 2024</h1>
<figure><img src="/img/run1.jpg" alt="Runners at the start"><figcaption>Runners at the start line.</figcaption></figure>
<figure><img src="/img/run2.jpg" alt=""><figcaption>Winner Sofia Brandt crosses the finish line.</figcaption></figure>
<figure><img src="/img/run3.jpg" alt=""><figcaption>Volunteer Kai Moreno hands out water.</figcaption></figure>`,
    ),
    name: 'Sofia Brandt',
    flags: [],
  },
  {
    id: 'gallery-third',
    kind: 'gallery with captions',
    image: 2,
    html: page(
      'Gallery: charity run 2024',
      `<h1>Charity run 2024</h1>
<figure><img src="/img/run1.jpg" alt="Runners at the start"><figcaption>Runners at the start line.</figcaption></figure>
<figure><img src="/img/run2.jpg" alt=""><figcaption>Winner Sofia Brandt crosses the finish line.</figcaption></figure>
<figure><img src="/img/run3.jpg" alt=""><figcaption>Volunteer Kai Moreno hands out water.</figcaption></figure>`,
    ),
    name: 'Kai Moreno',
    flags: [],
  },
  {
    id: 'press-release',
    kind: 'press release',
    html: page(
      'Press release: Harbour Energy appoints new chair',
      `<h1>Harbour Energy appoints new chair</h1><p><img src="/img/novak.jpg" alt="Irena Novak"></p>
<p>FOR IMMEDIATE RELEASE. Harbour Energy plc today announced that Irena Novak will become chair of its board from 1 March.</p>
<p>"I am delighted to join," said Ms Novak. Media contact: press@harbour.example.</p>`,
    ),
    name: 'Irena Novak',
    flags: [],
  },
  {
    id: 'court-report',
    kind: 'court report',
    html: article(
      'Accountant jailed for pension fraud',
      'quinn',
      'Daniel Quinn outside Ashvale Crown Court.',
      [
        'Daniel Quinn, 47, was jailed for six years on Friday after he was convicted of stealing from a pension fund.',
        'Judge Miriam Achebe told Quinn he had betrayed the trust of hundreds of savers.',
      ],
    ),
    name: 'Daniel Quinn',
    flags: ['criminal'],
  },
  {
    id: 'court-acquitted',
    kind: 'court report (negation)',
    html: article('Builder cleared of fraud charges', 'wade', 'Liam Wade leaves court after the verdict.', [
      'Liam Wade was acquitted of all charges at Riverton Crown Court on Thursday.',
      'The jury took less than two hours. Wade thanked his family.',
    ]),
    name: 'Liam Wade',
    flags: [],
  },
  {
    id: 'not-charged',
    kind: 'negation',
    html: article(
      'Man questioned over warehouse fire released',
      'foster',
      'Owen Foster spoke to reporters.',
      [
        'Owen Foster was questioned by police and released without charge on Monday.',
        'Police said Foster was not charged and is not a suspect.',
      ],
    ),
    name: 'Owen Foster',
    flags: [],
  },
  {
    id: 'sanctions-lifted',
    kind: 'negation',
    html: article('Sanctions on trader lifted', 'haas', 'Greta Haas in Vienna.', [
      'The sanctions against Greta Haas were lifted on Tuesday after a court review.',
      'Haas is no longer sanctioned and her accounts were released.',
    ]),
    name: 'Greta Haas',
    flags: [],
  },
  {
    id: 'candidate-not-elected',
    kind: 'negation',
    html: article('Newcomer stands for council seat', 'ortiz', 'Lucia Ortiz campaigning in Mill Lane.', [
      'Lucia Ortiz, a candidate for the Ashvale ward, knocked on doors all week.',
      'Ortiz works as a nurse at the Riverton Hospice.',
    ]),
    name: 'Lucia Ortiz',
    flags: [],
  },
  {
    id: 'caption-only',
    kind: 'named only in the caption',
    html: article('Spring comes to the valley', 'park', 'Photographer Hana Sato in the orchard.', [
      'Blossom covered the orchards of the Ashvale valley this week, weeks earlier than usual.',
      'Growers expect a good harvest if the frost stays away.',
    ]),
    name: 'Hana Sato',
    flags: [],
  },
  {
    id: 'alt-only',
    kind: 'named only in the alt text',
    html: page(
      'Festival of lights',
      `<h1>Festival of lights</h1><img src="/img/lights.jpg" alt="Dev Patel Rao lighting the first lamp">
<p>Thousands gathered on the riverbank for the annual festival of lights.</p>`,
    ),
    name: 'Dev Patel Rao',
    flags: [],
  },
  {
    id: 'no-name',
    kind: 'nobody named',
    html: article('Market day draws crowds', 'market', 'Shoppers at the Saturday market.', [
      'The Saturday market returned to the square with more than sixty stalls.',
      'Organisers said it was the busiest day of the year.',
    ]),
    name: '',
    flags: [],
  },
  {
    id: 'group-photo',
    kind: 'several people',
    html: article(
      'Chess club wins regional title',
      'chess',
      'Team members Ines Moreau, Pavel Kral and captain Rosa Lind with the trophy.',
      [
        'Riverton Chess Club won the regional championship on Sunday.',
        'Captain Rosa Lind said the team had trained every week for a year.',
        'Rosa Lind, who founded the club in 2015, played the deciding game.',
      ],
    ),
    name: 'Rosa Lind',
    flags: [],
  },
  {
    id: 'several-flags-other',
    kind: 'several people, flag of another',
    html: article(
      'Charity director meets minister',
      'weber',
      'Charity director Nora Weber (left) with Minister Paul Grant.',
      [
        'Nora Weber, director of the Ashvale Food Bank, met Minister Paul Grant to ask for more funding.',
        'Weber said demand had doubled since last winter.',
        'Nora Weber has run the food bank since 2018.',
      ],
    ),
    name: 'Nora Weber',
    flags: [],
  },
  {
    id: 'alias-initial',
    kind: 'aliases and initials',
    html: article('Draganov speaks at energy forum', 'draganov2', 'V. Draganov at the Sofia energy forum.', [
      'Viktor Draganov, who is under EU sanctions, spoke at the forum by video link.',
      'Draganov called the measures unfair.',
    ]),
    name: 'Viktor Draganov',
    flags: ['sanctions'],
  },
  {
    id: 'alias-spelling',
    kind: 'spelling variant (watch-list)',
    html: article('Yacht seized in marina', 'yacht', 'Businessman Victor Draganoff on his yacht in 2018.', [
      'Port authorities seized a yacht said to belong to Victor Draganoff.',
      'Draganoff could not be reached for comment.',
    ]),
    name: 'Victor Draganoff',
    flags: [],
    watchlistFlags: ['sanctions'],
  },
  {
    id: 'accented',
    kind: 'accented names',
    html: article('Café owner wins award', 'munoz', 'José Muñoz Ibáñez in his café.', [
      'José Muñoz Ibáñez has run the Café Central for thirty years.',
      'Muñoz Ibáñez received the town’s business award on Friday.',
    ]),
    name: 'José Muñoz Ibáñez',
    flags: [],
  },
  {
    id: 'accented-politician',
    kind: 'accented names',
    html: article('Senator visits flood area', 'sorensen', 'Senator Søren Ødegaard talks to residents.', [
      'Søren Ødegaard, a senator for the northern region, visited the flooded villages on Sunday.',
      'Ødegaard promised emergency funds.',
    ]),
    name: 'Søren Ødegaard',
    flags: ['politician'],
  },
  {
    id: 'list-page',
    kind: 'list page',
    image: 1,
    html: page(
      'Our team',
      `<h1>Our team</h1><ul>
<li><img src="/img/t1.jpg" alt=""><p>Anna Kowalska — head of design</p></li>
<li><img src="/img/t2.jpg" alt=""><p>Marek Nowak — lead engineer</p></li>
<li><img src="/img/t3.jpg" alt=""><p>Julia Wiśniewska — office manager</p></li></ul>`,
    ),
    name: 'Marek Nowak',
    flags: [],
  },
  {
    id: 'list-councillors',
    kind: 'list page',
    image: 2,
    html: page(
      'Your councillors',
      `<h1>Your councillors</h1><ul>
<li><img src="/img/c1.jpg" alt="Councillor Ben Achterberg"><p>Councillor Ben Achterberg, Riverside ward</p></li>
<li><img src="/img/c2.jpg" alt="Councillor Mira Shah"><p>Councillor Mira Shah, Mill ward</p></li>
<li><img src="/img/c3.jpg" alt="Councillor Ada Osei"><p>Councillor Ada Osei, Ashvale ward</p></li></ul>`,
    ),
    name: 'Ada Osei',
    flags: ['politician'],
  },
  {
    id: 'arrest',
    kind: 'arrest report',
    html: article('Man arrested after bank robbery', 'hughes', 'Carl Hughes was arrested on Friday.', [
      'Carl Hughes, 34, was arrested on suspicion of robbery after a raid on a bank in Riverton.',
      'He was later charged with robbery and will appear before magistrates on Monday.',
    ]),
    name: 'Carl Hughes',
    flags: ['criminal'],
  },
  {
    id: 'interview',
    kind: 'interview',
    html: article(
      '"Music saved me": an interview with Leila Haddad',
      'haddad',
      'Leila Haddad in her studio.',
      [
        'Leila Haddad grew up above her parents’ bakery in Ashvale.',
        'Now 29, Haddad has released three albums and is touring Europe.',
      ],
    ),
    name: 'Leila Haddad',
    flags: [],
  },
  {
    id: 'title-and-text',
    kind: 'named in title and text',
    html: page(
      'Mayor Tobias Klein unveils budget',
      `<h1>Mayor Tobias Klein unveils budget</h1><img src="/img/klein.jpg" alt="">
<p>Tobias Klein was elected mayor of Eastbrook in 2022. On Monday Klein presented a budget that freezes council tax.</p>`,
    ),
    name: 'Tobias Klein',
    flags: ['politician'],
  },
  {
    id: 'obituary',
    kind: 'obituary',
    html: article('Obituary: Margaret Oyelaran, teacher', 'oyelaran', 'Margaret Oyelaran in 1998.', [
      'Margaret Oyelaran, who taught maths at Ashvale High School for forty years, has died aged 88.',
      'Former pupils remember Oyelaran as strict but kind.',
    ]),
    name: 'Margaret Oyelaran',
    flags: [],
  },
  {
    id: 'sports',
    kind: 'sports report',
    html: article('Late goal sends Riverton through', 'silva', 'Striker Tiago Silva celebrates his goal.', [
      'Tiago Silva scored in the 89th minute to send Riverton into the cup semi-final.',
      'Manager Kate Doyle praised the team’s spirit.',
    ]),
    name: 'Tiago Silva',
    flags: [],
  },
  {
    id: 'pep-watchlist-only',
    kind: 'PEP only on the watch-list',
    html: article('Okafor opens school library', 'okafor2', 'Amelia Okafor reads to pupils.', [
      'Amelia Okafor visited Greenfield Primary on Wednesday to open its new library.',
      'Pupils read poems they had written.',
    ]),
    name: 'Amelia Okafor',
    flags: [],
    watchlistFlags: ['politician'],
  },
  {
    id: 'wanted-watchlist',
    kind: 'wanted, watch-list and page',
    html: article(
      'Fugitive spotted in Nice, police say',
      'vellini2',
      'A photo of Marco Vellini released by police.',
      [
        'Italian police said Marco Vellini, who has been on the run since 2021, was seen in Nice.',
        'Vellini is wanted for fraud in three countries.',
      ],
    ),
    name: 'Marco Vellini',
    flags: ['criminal'],
  },
  {
    id: 'bystander',
    kind: 'bystander near a flagged person',
    html: article('Crowds at the courthouse', 'crowd', 'Protester Eva Lindgren outside the court.', [
      'Eva Lindgren joined dozens of protesters outside the court where Daniel Quinn was sentenced to six years.',
      'Lindgren said she had lost her savings.',
    ]),
    name: 'Eva Lindgren',
    flags: [],
  },
  {
    id: 'former-minister',
    kind: 'former office',
    html: article('Former minister publishes memoir', 'petrov', 'Ivan Petrov signs copies of his book.', [
      'Ivan Petrov, the former finance minister, has published a memoir of his years in government.',
      'Petrov served as minister from 2010 to 2014.',
    ]),
    name: 'Ivan Petrov',
    flags: ['politician'],
  },
  {
    id: 'business-no-flag',
    kind: 'business news',
    html: article('Bakery chain expands to Ashvale', 'baker', 'Founder Oliver Grant at the new shop.', [
      'Oliver Grant opened the first Grant’s Bakery in 2001 and now runs twelve shops.',
      'Grant said he planned to hire thirty people.',
    ]),
    name: 'Oliver Grant',
    flags: [],
  },

  // Held-out pages: written after tuning; the extractor was not changed to pass them.
  {
    id: 'held-possessive',
    kind: 'held out',
    heldOut: true,
    html: article('Marsh’s plan for the riverside', 'marsh3', 'Helena Marsh’s first budget was approved.', [
      'The council approved Mayor Helena Marsh’s plan to rebuild the riverside path.',
      'Marsh said work would start in May.',
    ]),
    name: 'Helena Marsh',
    flags: ['politician'],
  },
  {
    id: 'held-same-surname',
    kind: 'held out',
    heldOut: true,
    html: article('Father and son open garage', 'okoro', 'Samuel Okoro with his father, Peter Okoro.', [
      'Samuel Okoro, 24, opened a garage on Mill Lane with his father Peter Okoro.',
      'Peter Okoro was jailed in 1999 for burglary and now mentors young offenders.',
    ]),
    name: 'Samuel Okoro',
    flags: [],
  },
  {
    id: 'held-alleged',
    kind: 'held out',
    heldOut: true,
    html: article('Councillor denies expenses claims', 'reyes', 'Councillor Martin Reyes at the town hall.', [
      'Martin Reyes, a councillor for the Riverside ward, denied claims that he had misused expenses.',
      'Police have not opened an investigation.',
    ]),
    name: 'Martin Reyes',
    flags: ['politician'],
  },
  {
    id: 'held-second-in-caption',
    kind: 'held out',
    heldOut: true,
    html: article(
      'New head teacher for Greenfield Primary',
      'shaw',
      'Outgoing head Brian Cole (left) and new head teacher Aisha Shaw.',
      [
        'Aisha Shaw will become head teacher of Greenfield Primary in September.',
        'Shaw has taught at the school for eleven years.',
      ],
    ),
    name: 'Aisha Shaw',
    flags: [],
  },
  {
    id: 'held-acting-mayor',
    kind: 'held out',
    heldOut: true,
    html: article('Acting mayor sworn in', 'dunn', 'Peter Dunn takes the oath.', [
      'Peter Dunn was sworn in as acting mayor of Riverton on Monday.',
      'Dunn, who was deputy mayor, will serve until the election.',
    ]),
    name: 'Peter Dunn',
    flags: ['politician'],
  },
  {
    id: 'held-victim',
    kind: 'held out',
    heldOut: true,
    html: article('Pensioner tells of scam ordeal', 'bell', 'Doris Bell at her home in Ashvale.', [
      'Doris Bell lost £20,000 to a phone scam. The man who tricked her was later convicted of fraud.',
      'Bell wants banks to do more to protect customers.',
    ]),
    name: 'Doris Bell',
    flags: [],
  },
  {
    id: 'held-headline-only',
    kind: 'held out',
    heldOut: true,
    html: page(
      'Kwame Mensah named coach of the year',
      `<h1>Kwame Mensah named coach of the year</h1><img src="/img/mensah.jpg" alt="">
<p>The Riverton Rowing Club coach received the award at a dinner on Saturday.</p>`,
    ),
    name: 'Kwame Mensah',
    flags: [],
  },
  {
    id: 'held-sanctions-company',
    kind: 'held out',
    heldOut: true,
    html: article('Shipping firm placed under sanctions', 'varga', 'Company founder Laszlo Varga in 2020.', [
      'The government placed Danube Freight Ltd under sanctions on Thursday.',
      'Laszlo Varga, who founded the company, was also added to the sanctions list and had his assets frozen.',
    ]),
    name: 'Laszlo Varga',
    flags: ['sanctions'],
  },
];
