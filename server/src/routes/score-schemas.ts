import { Type } from '@fastify/type-provider-typebox';

/** A match score as every answer gives it: the cosine and the face model whose scale it is on. */
export const MatchScoreFields = {
  similarity: Type.Number(),
  scoreModel: Type.Union([Type.String(), Type.Null()], {
    description:
      'The face model that computed the similarity; its scale gives the band (null: scored by a model no ' +
      'longer known)',
  }),
};
