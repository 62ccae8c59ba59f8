import { MAX_RELOAD_PAGE_SIZE } from '@osint/contract/constants';
import { EXTRACTION_DETAIL_STEP } from '@osint/contract/data-extractor';
import { Type } from '@fastify/type-provider-typebox';
import { MatchScoreFields } from './score-schemas.ts';
import { PageNumber } from './paging-schema.ts';

/** TypeBox schemas of the data-extractor API (contract/src/data-extractor.ts), shared by user and admin routes. */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const State = Type.Union([Type.Literal('PENDING'), Type.Literal('DONE'), Type.Literal('FAILED')]);
const CheckedStatus = Type.Union([Type.Literal('NEW'), Type.Literal('CHECKED')]);

/** Page numbers from 1; the bound keeps the offset a number the database takes (10⁵ pages of 1000). */

export const ListItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  state: State,
  status: CheckedStatus,
  createdAt: Type.String(),
  completedAt: Nullable(Type.String()),
  estimatedEndAt: Type.String(),
  imagePath: Type.String(),
  processedCount: Type.Integer(),
  resultCount: Type.Integer(),
  bestName: Nullable(Type.String()),
  organizationName: Type.Optional(Type.String()),
});

export const ListQuery = Type.Object({
  pageNumber: PageNumber,
  // A refetch reloads every page already shown in one request (spec 001 §7).
  pageSize: Type.Integer({ minimum: 1, maximum: MAX_RELOAD_PAGE_SIZE, default: 5 }),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.Union([Type.Literal('PENDING'), Type.Literal('DONE')])),
  checkedStatus: Type.Optional(Type.Literal('NEW')),
});

export const ListResponse = Type.Object({
  dataExtractorListItemList: Type.Array(ListItem),
  totalResultCount: Type.Integer(),
});

const NameStatistic = Type.Object({
  name: Type.String(),
  linkCount: Type.Integer(),
  politicianCount: Type.Integer(),
  criminalCount: Type.Integer(),
  sanctionsCount: Type.Integer(),
  seenWithCount: Type.Integer(),
});

export const Summary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  createdAt: Type.String(),
  state: State,
  nameStatistic: NameStatistic,
  nameList: Type.Array(NameStatistic),
  bestName: Nullable(Type.String()),
  namesFound: Type.Integer(),
  seenWithNames: Type.Array(Type.String()),
});

const Flag = Type.Union([Type.Literal('politician'), Type.Literal('sanctions'), Type.Literal('criminal')]);

const Evidence = Type.Object({
  flag: Flag,
  source: Type.Union([Type.Literal('watchlist'), Type.Literal('page'), Type.Literal('llm')]),
  text: Type.String(),
  url: Nullable(Type.String()),
  listName: Type.Optional(Type.String()),
  entryId: Type.Optional(Type.String()),
  score: Type.Optional(Type.Number()),
});

const ExtractedResult = Type.Object({
  hashedId: Type.String(),
  personName: Type.String(),
  personDesc: Type.String(),
  politician: Type.Boolean(),
  sanctions: Type.Boolean(),
  criminal: Type.Boolean(),
  seenWith: Type.Boolean(),
  checked: Type.Boolean(),
  sourceUrl: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
  sourceTitle: Type.String(),
  thumbnailUrl: Type.String(),
  ...MatchScoreFields,
  crawledAt: Type.String(),
  alternativeNames: Type.Array(Type.String()),
  evidence: Type.Array(Evidence),
  seenWithNames: Type.Array(Type.String()),
});

const WikipediaResult = Type.Object({
  name: Type.String(),
  personDescription: Type.String(),
  politician: Type.Boolean(),
  sanctions: Type.Boolean(),
  criminal: Type.Boolean(),
  checked: Type.Boolean(),
  url: Nullable(Type.String()),
  evidence: Type.Array(Evidence),
});

export const DetailsQuery = Type.Object({
  pageNumber: PageNumber,
  // A refetch reloads every page already shown in one request (spec 001 §7).
  pageSize: Type.Integer({ minimum: 1, maximum: MAX_RELOAD_PAGE_SIZE, default: EXTRACTION_DETAIL_STEP }),
  politician: Type.Optional(Type.Boolean()),
  sanctions: Type.Optional(Type.Boolean()),
  criminal: Type.Optional(Type.Boolean()),
  checked: Type.Optional(Type.Boolean()),
  sortBy: Type.Union([Type.Literal('smart'), Type.Literal('date'), Type.Literal('similarity')], {
    default: 'smart',
  }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  seenWith: Type.Optional(Type.String({ maxLength: 200 })),
});

export const DetailsResponse = Type.Object({
  responses: Type.Array(ExtractedResult),
  wikipediaResult: Nullable(WikipediaResult),
  totalResultCount: Type.Integer(),
});

export const Connections = Type.Array(
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    imgUrl: Nullable(Type.String()),
    aboutUrl: Nullable(Type.String()),
    politician: Type.Boolean(),
    sanctions: Type.Boolean(),
    criminal: Type.Boolean(),
    evidence: Type.Array(Evidence),
  }),
);

export const ReportBody = Type.Object({
  // Empty when only the Wikipedia result is chosen (the service refuses a report of nothing).
  hashedId: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 1000 }),
  containWikipediaData: Type.Boolean({ default: false }),
});
