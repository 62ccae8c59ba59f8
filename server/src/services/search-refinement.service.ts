import { MAX_ADDED_RESULT_FACES, SEARCH_MESSAGES } from '@osint/contract/search';
import type { LazyFaceEngine } from '../face/lazy-face-engine.ts';
import { l2Normalise } from '../face/similarity.ts';
import { cropDigest } from '../lib/face-image.ts';
import { badRequest, notFound } from '../lib/http-error.ts';
import type { SearchRepository } from '../repositories/search.repository.ts';
import type { AccessService } from './access.service.ts';
import { descriptorOfCrop } from './face-watch.service.ts';
import type { MinorGateService } from './minor-gate.service.ts';
import type { QueryFaceTokens } from './query-face-token.ts';
import type { SearchAnswer, SearchService } from './search.service.ts';
import type { AuthUser } from './session.service.ts';

/**
 * "Search again with these faces": the analyst marks results that surely show the searched person, and the
 * search runs again on the mean of the searched face and those results' indexed faces, as a search of
 * several uploaded photos of the person does (`npm run bench:faces`, queries of several photos: at the
 * shipped threshold 2 photos find 77 % of the person's other photos and 3 photos 84 %, against 63 % from
 * one, with no more strangers). The analyst, not the score, decides that the faces are one person: the
 * engine never adds a hit to the query by itself (README of the face engine, "Query expansion").
 */
export class SearchRefinementService {
  constructor(
    private readonly searches: SearchRepository,
    private readonly tokens: QueryFaceTokens,
    private readonly engine: LazyFaceEngine,
    private readonly access: AccessService,
    private readonly minorGate: Pick<MinorGateService, 'isLawEnforcement'>,
    private readonly search: Pick<SearchService, 'search'>,
  ) {}

  /**
   * POST /api/search/{searchHash}/with-results: a new search of the organization's search's face together
   * with the faces that search already added (when it was itself searched again) and those of the chosen
   * results (record hashes), stored and answered like any search. The searched face is read again from the
   * picture the search kept (it keeps no descriptor), under the active model; the new search keeps the same
   * picture. The minors gate applies to every face as to uploaded ones.
   */
  async searchWithResults(user: AuthUser, searchHash: string, recordHashes: string[]): Promise<SearchAnswer> {
    await this.access.require(user);
    const search = await this.searches.findByHashedId(searchHash, user.organizationId);
    if (!search) throw notFound('Search not found.');
    const crop = await this.searches.findFaceImage(searchHash, user.organizationId);
    if (!crop) throw badRequest(SEARCH_MESSAGES.searchedFaceNotKept);
    const chosen = [...new Set(recordHashes)];
    const minorsAllowed = await this.minorGate.isLawEnforcement(user.organizationId);
    const chosenResults = await this.searches.findResultFaceIds(search.id, chosen, minorsAllowed);
    // One face for results of one image shown on several pages.
    const chosenFaceIds = new Set(chosenResults.values());
    const engine = await this.engine.get();
    const faces = await this.searches.findIndexedFaces([
      ...new Set([...search.added_face_ids.map(Number), ...chosenFaceIds]),
    ]);
    const usable = (face: (typeof faces)[number]) =>
      face.modelId === engine.modelId && (minorsAllowed || face.possibleMinor !== true);
    // A chosen result removed since, another search's, gone from the index or described by a model no longer
    // in use is refused; a face added earlier and gone since (opted out, reindexed) is left out.
    if (
      chosenResults.size !== chosen.length ||
      faces.filter((f) => chosenFaceIds.has(f.id) && usable(f)).length !== chosenFaceIds.size
    ) {
      throw badRequest(SEARCH_MESSAGES.resultFaceGone);
    }
    const added = faces.filter(usable);
    if (added.length > MAX_ADDED_RESULT_FACES) throw badRequest(SEARCH_MESSAGES.tooManyAddedResults);
    const searched = await descriptorOfCrop(engine, crop, user.organizationId);
    if (!searched) throw badRequest(SEARCH_MESSAGES.faceGone);
    // PGlite answers bytea as a Uint8Array, whose toString ignores the encoding.
    const picture = Buffer.from(crop).toString('base64');
    const seal = (face: { descriptor: Float32Array; possibleMinor: boolean; picture?: string }) =>
      this.tokens.seal({
        descriptor: face.descriptor,
        modelId: engine.modelId,
        organizationId: user.organizationId,
        userId: user.id,
        possibleMinor: face.possibleMinor,
        cropSha256: face.picture === undefined ? undefined : cropDigest(face.picture),
      });
    const tokens = await Promise.all([
      // A face the first search's upload flagged stays flagged; the picture is this face's.
      seal({ ...searched, possibleMinor: searched.possibleMinor || search.possible_minor, picture }),
      // As the index gate reads the flag: a face indexed before the age estimate (null) is shown to every
      // organization until a reindex estimates it, so it is searched as it is shown.
      ...added.map((face) =>
        seal({ descriptor: l2Normalise(face.vector), possibleMinor: face.possibleMinor === true }),
      ),
    ]);
    return this.search.search(
      user,
      tokens,
      search.type,
      picture,
      added.map((face) => face.id),
    );
  }
}
