import { MAX_QUERY_FACES, SEARCH_MESSAGES } from '@osint/contract/search';
import type { LazyFaceEngine } from '../face/lazy-face-engine.ts';
import { badRequest, notFound } from '../lib/http-error.ts';
import type { SearchRepository } from '../repositories/search.repository.ts';
import type { AccessService } from './access.service.ts';
import { readKeptFaces, searchKeptFaces, visibleIndexedFaces } from './kept-faces.ts';
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
   * POST /api/search/{searchHash}/with-results: a new search of the organization's search's faces — the
   * one it shows and the other uploaded faces of the person it was searched with — together with the faces
   * that search already added (when it was itself searched again) and those of the chosen results (record
   * hashes), stored and answered like any search. The uploaded faces are read again from the pictures the
   * search kept (it keeps no descriptor), under the active model; the new search keeps the same pictures.
   * The minors gate applies to every face as to uploaded ones.
   */
  async searchWithResults(user: AuthUser, searchHash: string, recordHashes: string[]): Promise<SearchAnswer> {
    await this.access.require(user);
    const search = await this.searches.findByHashedId(searchHash, user.organizationId);
    if (!search) throw notFound('Search not found.');
    if (!search.has_face_image) throw badRequest(SEARCH_MESSAGES.searchedFaceNotKept);
    const chosen = [...new Set(recordHashes)];
    const minorsAllowed = await this.minorGate.isLawEnforcement(user.organizationId);
    const chosenResults = await this.searches.findResultFaceIds(search.id, chosen, minorsAllowed);
    // One face for results of one image shown on several pages.
    const chosenFaceIds = new Set(chosenResults.values());
    const engine = await this.engine.get();
    const faces = await readKeptFaces(
      engine,
      this.searches,
      await this.searches.findKeptFaces(searchHash, user.organizationId),
      { organizationId: user.organizationId, flaggedAtUpload: search.possible_minor },
      [...chosenFaceIds],
    );
    const { shown, others } = faces;
    const added = visibleIndexedFaces(faces, minorsAllowed);
    // A chosen result removed since, another search's, gone from the index or described by a model no longer
    // in use is refused; a face added earlier and gone since (opted out, reindexed) is left out.
    if (
      chosenResults.size !== chosen.length ||
      added.filter((face) => chosenFaceIds.has(face.id)).length !== chosenFaceIds.size
    ) {
      throw badRequest(SEARCH_MESSAGES.resultFaceGone);
    }
    if (1 + others.length + added.length > MAX_QUERY_FACES)
      throw badRequest(SEARCH_MESSAGES.tooManyAddedResults);
    if (!shown) throw badRequest(SEARCH_MESSAGES.faceGone);
    // The kept pictures stay the new search's: the shown face first, as the search shows it.
    return searchKeptFaces(
      { tokens: this.tokens, search: this.search },
      user,
      engine.modelId,
      { shown, others, indexed: added },
      search.type,
    );
  }
}
