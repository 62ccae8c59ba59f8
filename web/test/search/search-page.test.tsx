import { SEARCH_MESSAGES, SMALL_FACE_MARK } from '@osint/contract/search';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useParams } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { ToastRegion } from '../../src/components/toast-region';
import { PREFERENCE_KEYS } from '../../src/lib/preferences';
import { mockFetch, type RecordedCall } from '../auth/fetch-mock';

const session = {
  user: {
    access: true,
    restricted: false,
    isOwner: true,
    admin: false,
    planActive: false,
    organizationBlocked: false,
    hashedId: 'owner-id',
    organizationId: 7,
  },
  organization: {},
};
vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({ session, refresh: vi.fn() }),
}));

const { SearchPage } = await import('../../src/features/search/search-page');
const { StoredSearchPage } = await import('../../src/features/search/stored-search-page');

const face = (n: number, size = 200) => ({
  hash: `face-${n}`,
  base64: 'AAAA',
  box: { x: 10 * n, y: 20, width: size, height: size + 4 },
  small: size < 128,
});
const sizes = { minFaceSize: 64, reliableFaceSize: 128 };
const hit = (id: number, group: string) => ({
  id,
  hash: `r${id}`,
  group,
  thumbnailUrl: `/api/thumbnails/${id}`,
  imageUrl: `https://news${id}.example.org/a.jpg`,
  sourceUrl: `https://news${id}.example.org/story`,
  sourceTitle: `Story ${id}`,
  crawledAt: '2024-05-01T10:00:00.000Z',
  similarity: 0.97,
  scoreModel: SHIPPED_SCORE_MODEL,
  faceBox: { x: 4, y: 6, width: 40, height: 48 },
  imageSize: { width: 200, height: 160 },
});
/** GET /api/search/{hash}: the search as POST /api/search answered it, with what reopening needs. */
const stored = <T extends { searchHash: string }>(answer: T) => ({
  ...answer,
  type: 'OSINT',
  createdAt: '2024-05-02T10:00:00.000Z',
  image: `/api/search/${answer.searchHash}/image`,
});

/** The search page and the results page at the search's own address, as the app routes them. */
function Pages({ initialEntry = '/search' }: { initialEntry?: string }) {
  return (
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <BannerProvider>
        <MemoryRouter initialEntries={[initialEntry]}>
          <ToastRegion />
          <Routes>
            <Route path="/search/:imageUrl?" element={<SearchPage />} />
            <Route path="/search/results/:searchHash" element={<ResultsRoute />} />
          </Routes>
        </MemoryRouter>
      </BannerProvider>
    </QueryClientProvider>
  );
}

function ResultsRoute() {
  const { searchHash = '' } = useParams();
  return <StoredSearchPage searchHash={searchHash} />;
}

function renderPage() {
  const user = userEvent.setup();
  render(<Pages />);
  return user;
}

const photo = () =>
  new File([new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3])], 'photo.jpg', { type: 'image/jpeg' });

async function upload(user: ReturnType<typeof userEvent.setup>, file = photo()) {
  await user.upload(screen.getByLabelText('Photo to search'), file);
}

beforeEach(() => {
  URL.createObjectURL = vi.fn(() => 'blob:preview');
  URL.revokeObjectURL = vi.fn();
  localStorage.clear();
  // Failures are logged by design (spec 001 §8); keep the test output quiet.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('SearchPage', () => {
  test('no face: the spec message, and the page starts over; small faces are explained', async () => {
    mockFetch(() => ({
      status: 200,
      body: { faces: [], smallFaceCount: 2, smallFaceSizes: [51, 40], smallFaceBoxes: [], ...sizes },
    }));
    const user = renderPage();
    expect(screen.getByText('Upload photo and find out where images are published')).toBeTruthy();
    await upload(user);
    expect(await screen.findByText(SEARCH_MESSAGES.noFaces)).toBeTruthy();
    expect(
      screen.getByText(
        /^2 faces were found but are too small to search \(under 64 px\); the largest is 51 px\./,
      ),
    ).toBeTruthy();
    expect(screen.getByText('Upload photo and find out where images are published')).toBeTruthy();
  });

  test('a photo over 1.5 MB is refused as the server would', async () => {
    const { calls } = mockFetch(() => ({ status: 500 }));
    const user = renderPage();
    await upload(user, new File([new Uint8Array(1.6 * 1024 * 1024)], 'big.jpg', { type: 'image/jpeg' }));
    expect(await screen.findByText(SEARCH_MESSAGES.tooBig)).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  test('413 and other upload failures show their messages', async () => {
    let status = 413;
    mockFetch(() => ({ status, body: { message: 'x' } }));
    const user = renderPage();
    await upload(user);
    expect(await screen.findByText(SEARCH_MESSAGES.tooBig)).toBeTruthy();
    status = 500;
    await upload(user);
    expect(await screen.findByText(SEARCH_MESSAGES.detectFailure)).toBeTruthy();
  });

  test('a file that is not a photo gets the unsupported-file message, not "Something went wrong" (issue 15 item 8)', async () => {
    const { calls } = mockFetch(() => ({ status: 400, body: { message: SEARCH_MESSAGES.unsupportedFile } }));
    // Any file can be dropped on the upload area, whatever the input accepts.
    const user = userEvent.setup({ applyAccept: false });
    renderPage();
    await upload(user, new File(['%PDF-1.7'], 'report.pdf', { type: 'application/pdf' }));
    expect(await screen.findByText(SEARCH_MESSAGES.unsupportedFile)).toBeTruthy();
    expect(screen.queryByText(SEARCH_MESSAGES.detectFailure)).toBeNull();
    expect(calls).toHaveLength(0);

    // A non-image named like a photo: the server refuses it with the same message, shown as the headline.
    await upload(user, new File(['not a photo'], 'photo.jpg', { type: 'image/jpeg' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(await screen.findByText(SEARCH_MESSAGES.unsupportedFile)).toBeTruthy();
    expect(screen.queryByText(SEARCH_MESSAGES.detectFailure)).toBeNull();
  });

  test('another photo of the person: refused files change nothing; its face joins the search and can be removed', async () => {
    const answers = [
      {
        status: 200,
        body: { faces: [face(1)], smallFaceCount: 0, smallFaceSizes: [], smallFaceBoxes: [], ...sizes },
      },
      { status: 413, body: { message: 'too large' } },
      {
        status: 200,
        body: { faces: [], smallFaceCount: 1, smallFaceSizes: [50], smallFaceBoxes: [], ...sizes },
      },
      {
        status: 200,
        body: { faces: [face(8)], smallFaceCount: 0, smallFaceSizes: [], smallFaceBoxes: [], ...sizes },
      },
      {
        status: 200,
        body: { faces: [face(9)], smallFaceCount: 0, smallFaceSizes: [], smallFaceBoxes: [], ...sizes },
      },
    ];
    const { calls } = mockFetch((call: RecordedCall) => {
      if (call.url === '/api/upload-image') return answers.shift()!;
      return { status: 200, body: { results: [], time: 10, numberOfResults: 0, searchHash: 'S9' } };
    });
    const user = userEvent.setup({ applyAccept: false });
    renderPage();
    await upload(user);
    expect(await screen.findByRole('group', { name: 'Face to search' })).toBeTruthy();
    const another = screen.getByLabelText('Another photo of this person');

    // Refused here (not a photo), by the server (413), or without a face: the message, and the chosen face stays.
    await user.upload(another, new File(['%PDF-1.7'], 'report.pdf', { type: 'application/pdf' }));
    expect(await screen.findByText(SEARCH_MESSAGES.unsupportedFile)).toBeTruthy();
    await user.upload(another, photo());
    expect(await screen.findByText(SEARCH_MESSAGES.tooBig)).toBeTruthy();
    await user.upload(another, photo());
    expect(await screen.findByText(SEARCH_MESSAGES.noFaces)).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Face to search' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Selected face 1' })).toBeTruthy();

    // Two photos with one face each: both join; one is removed again.
    await user.upload(another, photo());
    expect(await screen.findByRole('group', { name: 'Faces to search (2)' })).toBeTruthy();
    await user.upload(screen.getByLabelText('Another photo of this person'), photo());
    expect(await screen.findByRole('group', { name: 'Faces to search (3)' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Remove face from another photo 1' }));
    expect(await screen.findByRole('group', { name: 'Faces to search (2)' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(calls.some((c) => c.url === '/api/search')).toBe(true));
    // The crops of both faces are sent to be kept with the search: the chosen one shown, the other beside it.
    expect(calls.find((c) => c.url === '/api/search')!.body).toEqual({
      faces: ['face-1', 'face-9'],
      type: 'OSINT',
      image: 'AAAA',
      otherImages: ['AAAA'],
    });
    // Five of the six files reached the server: the PDF was refused in the browser.
    expect(calls.filter((c) => c.url === '/api/upload-image')).toHaveLength(5);
  });

  test('several faces: choose two, search, remove with the one-time modal, then the empty state', async () => {
    const { calls } = mockFetch((call: RecordedCall) => {
      if (call.url === '/api/upload-image')
        return {
          status: 200,
          body: {
            faces: [face(1), face(2), face(3)],
            smallFaceCount: 0,
            smallFaceSizes: [],
            smallFaceBoxes: [],
            ...sizes,
          },
        };
      const answer = { results: [hit(1, 'a'), hit(2, 'a')], time: 534, numberOfResults: 2, searchHash: 'S1' };
      if (call.url === '/api/search') return { status: 200, body: answer };
      if (call.url === '/api/search/S1') return { status: 200, body: stored(answer) };
      return { status: 200, body: { removed: 1 } };
    });
    const user = renderPage();
    await upload(user);
    const chooser = await screen.findByRole('dialog', { name: 'Choose your face' });
    expect(within(chooser).getByText('Select photo(s) of your face to proceed with the search')).toBeTruthy();
    const proceed = within(chooser).getByRole('button', { name: 'Proceed to the face search' });
    expect((proceed as HTMLButtonElement).disabled).toBe(true);
    await user.click(within(chooser).getByRole('button', { name: 'Face 1' }));
    // Keyboard: Tab to the third face and press Space.
    await user.tab();
    await user.tab();
    await user.keyboard(' ');
    expect(within(chooser).getByText('2 faces selected')).toBeTruthy();
    await user.click(proceed);
    expect(screen.getByText('Faces to search (2)')).toBeTruthy();
    // Focus goes to the faces just chosen, not back to the top of the page.
    expect(document.activeElement).toBe(screen.getByRole('group', { name: 'Faces to search (2)' }));

    await user.click(screen.getByRole('button', { name: 'Search' }));
    // The results are loaded from the search's own address; focus starts at their heading.
    const resultsHeading = await screen.findByRole('heading', { name: 'Results' });
    await waitFor(() => expect(document.activeElement).toBe(resultsHeading));
    expect(calls.find((c) => c.url === '/api/search')!.body).toEqual({
      faces: ['face-1', 'face-3'],
      type: 'OSINT',
      image: 'AAAA',
      otherImages: ['AAAA'],
    });
    expect(calls.some((c) => c.url === '/api/search/S1' && c.method === 'GET')).toBe(true);
    expect(screen.getByRole('img', { name: 'Searched face' }).getAttribute('src')).toBe(
      '/api/search/S1/image',
    );
    const chip = screen.getByLabelText('Search summary');
    expect(chip.textContent).toContain('Standard search');
    expect(chip.textContent).toContain('2 results');
    expect(chip.textContent).toContain('0.53 s');
    expect(screen.getByRole('button', { name: 'Save result' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Remove result 1: Story 1, similarity 0.97' }));
    const modal = screen.getByRole('dialog', { name: 'Remove result' });
    await user.click(within(modal).getByLabelText("Don't show again"));
    await user.click(within(modal).getByRole('button', { name: 'Remove' }));
    expect(localStorage.getItem(PREFERENCE_KEYS.dismissedResultRemovalInfo)).toBe('true');
    expect(screen.getByLabelText('Search summary').textContent).toContain('1 result');
    await waitFor(() =>
      expect(calls.find((c) => c.url === '/api/search/remove-records')?.body).toEqual({
        hash: 'S1',
        recordHashes: ['r1'],
      }),
    );

    // Remembered: the second removal asks nothing.
    await user.click(screen.getByRole('button', { name: 'Remove result 1: Story 2, similarity 0.97' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByText('No Results Found...')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save result' })).toBeNull();

    await user.click(screen.getAllByRole('button', { name: 'New search' })[0]!);
    expect(screen.getByText('Upload photo and find out where images are published')).toBeTruthy();
  });

  test('faces under 128 px are offered with the small-face mark, tied to their button', async () => {
    const { calls } = mockFetch((call: RecordedCall) =>
      call.url === '/api/upload-image'
        ? {
            status: 200,
            body: {
              faces: [face(1, 150), face(2, 96), face(3, 64)],
              smallFaceCount: 3,
              smallFaceSizes: [60, 52, 41],
              smallFaceBoxes: [],
              ...sizes,
            },
          }
        : call.url === '/api/search'
          ? {
              status: 200,
              body: { results: [hit(1, 'a')], time: 200, numberOfResults: 1, searchHash: 'S3' },
            }
          : {
              status: 200,
              body: stored({ results: [hit(1, 'a')], time: 200, numberOfResults: 1, searchHash: 'S3' }),
            },
    );
    const user = renderPage();
    await upload(user);
    const chooser = await screen.findByRole('dialog', { name: 'Choose your face' });
    const marks = within(chooser).getAllByText(SMALL_FACE_MARK);
    expect(marks).toHaveLength(2);
    // The mark is the description of its face's button, with the face's size in the photo.
    const second = within(chooser).getByRole('button', { name: 'Face 2' });
    expect(second.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(second.getAttribute('aria-describedby')!)!.textContent).toBe(
      `${SMALL_FACE_MARK} (96×100 px)`,
    );
    expect(
      within(chooser).getByRole('button', { name: 'Face 1' }).getAttribute('aria-describedby'),
    ).toBeNull();
    expect(within(chooser).getByText(/Faces under 128×128 pixels carry less detail/)).toBeTruthy();
    expect(
      within(chooser).getByText(
        '3 more faces were found but are too small to search (under 64 px); the largest is 60 px.',
      ),
    ).toBeTruthy();
    // A small face can be searched like any other, and keeps its mark once chosen.
    await user.click(second);
    await user.click(within(chooser).getByRole('button', { name: 'Proceed to the face search' }));
    expect(screen.getByText('Face to search')).toBeTruthy();
    expect(screen.getByText(SMALL_FACE_MARK)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByRole('heading', { name: 'Results' })).toBeTruthy();
    expect(calls.find((c) => c.url === '/api/search')!.body).toEqual({
      faces: ['face-2'],
      type: 'OSINT',
      image: 'AAAA',
    });
  });

  test('a search failure shows the message and keeps the photo and its face for another try', async () => {
    mockFetch((call) =>
      call.url === '/api/upload-image'
        ? {
            status: 200,
            body: {
              faces: [face(1)],
              smallFaceCount: 1,
              smallFaceSizes: [48],
              smallFaceBoxes: [{ x: 1, y: 2, width: 48, height: 50 }],
              ...sizes,
            },
          }
        : { status: 500 },
    );
    const user = renderPage();
    await upload(user);
    expect(await screen.findByText('Face to search')).toBeTruthy();
    expect(
      screen.getByText('1 more face was found but is too small to search (under 64 px): it is 48 px.'),
    ).toBeTruthy();
    expect(screen.queryByText(SMALL_FACE_MARK)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Social Media Search' }));
    expect(await screen.findByText(SEARCH_MESSAGES.searchFailure)).toBeTruthy();
    expect(screen.getByText('Face to search')).toBeTruthy();
    expect(screen.queryByText('Upload photo and find out where images are published')).toBeNull();
    expect((screen.getByRole('button', { name: 'Search' }) as HTMLButtonElement).disabled).toBe(false);
  });

  test('users without access see why instead of the upload', () => {
    session.user.access = false;
    try {
      renderPage();
      expect(screen.getByText('Your Subscription Has Expired')).toBeTruthy();
      expect(screen.getByRole('link', { name: 'RENEW YOUR PLAN' }).getAttribute('href')).toBe('/pricing');
      cleanup();
      // An owner whose organization has a plan but who holds no seat is not told the plan expired.
      session.user.planActive = true;
      renderPage();
      expect(screen.queryByText('Your Subscription Has Expired')).toBeNull();
      expect(screen.getByText('You Hold No Seat')).toBeTruthy();
      expect(screen.getByRole('button', { name: 'Give yourself access' })).toBeTruthy();
      cleanup();
      session.user.isOwner = false;
      renderPage();
      expect(screen.getByText('Search Access Unavailable')).toBeTruthy();
      expect(screen.queryByRole('button', { name: 'Give yourself access' })).toBeNull();
      cleanup();
      // A member of an organization whose owner was blocked is not sent to that owner.
      session.user.organizationBlocked = true;
      renderPage();
      expect(screen.getByText('Your Organization’s Account Is Blocked')).toBeTruthy();
      expect(screen.getByRole('link', { name: 'Contact support' }).getAttribute('href')).toBe('/support');
      expect(screen.queryByText('Search Access Unavailable')).toBeNull();
    } finally {
      session.user.access = true;
      session.user.isOwner = true;
      session.user.planActive = false;
      session.user.organizationBlocked = false;
    }
  });
});

describe('SearchPage with an image address', () => {
  test('/search/{imageUrl} has the server fetch the image, then searches it', async () => {
    const calls: { url: string; body: unknown }[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = String(input);
      calls.push({ url, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
      if (url === '/api/upload-image-url')
        return Response.json({
          faces: [face(1)],
          smallFaceCount: 0,
          smallFaceSizes: [],
          smallFaceBoxes: [],
          ...sizes,
        });
      const answer = { results: [hit(1, 'a')], time: 120, numberOfResults: 1, searchHash: 'S2' };
      if (url === '/api/search/S2') return Response.json(stored(answer));
      if (url === '/api/search/S2/image') return new Response(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]));
      return Response.json(answer);
    });
    const address = 'https://news.example.org/photos/marsh.jpg';
    render(<Pages initialEntry={`/search/${encodeURIComponent(address)}`} />);
    expect(await screen.findByRole('heading', { name: 'Results' })).toBeTruthy();
    // The browser never downloads the image itself: the server fetches it (issue 16, item 3).
    expect(calls.slice(0, 3).map((c) => c.url)).toEqual([
      '/api/upload-image-url',
      '/api/search',
      '/api/search/S2',
    ]);
    expect(calls[0]!.body).toEqual({ url: address });
    expect(screen.getByLabelText('Search summary').textContent).toContain('0.12 s');
  });
});
