import { MAX_RELOAD_PAGE_SIZE } from '@osint/contract/constants';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, test } from 'vitest';
import { usePagedList } from '../../src/lib/use-paged-list';

const PAGE = 5;
const TOTAL = 1300;

/** A list of TOTAL items served like the server: pages of up to MAX_RELOAD_PAGE_SIZE, else a 400. */
function serverList(asked: number[]) {
  return async (pageNumber: number, size: number) => {
    asked.push(size);
    if (size > MAX_RELOAD_PAGE_SIZE) throw new Error('400: pageSize too large');
    const from = (pageNumber - 1) * size;
    const items = Array.from({ length: Math.max(0, Math.min(size, TOTAL - from)) }, (_, i) => from + i);
    return { items, total: TOTAL };
  };
}

describe('usePagedList', () => {
  test('a reload asks for every page shown in one request, and never more than the server answers', async () => {
    const asked: number[] = [];
    const { result } = renderHook(() => usePagedList('saved|DONE|', PAGE, serverList(asked)));
    await waitFor(() => expect(result.current.items).toHaveLength(PAGE));

    for (let page = 2; page <= 4; page++) {
      await act(async () => result.current.loadMore());
    }
    expect(result.current.items).toHaveLength(4 * PAGE);
    await act(() => result.current.reload());
    expect(asked.at(-1)).toBe(4 * PAGE);
    expect(result.current.items).toHaveLength(4 * PAGE);

    // Scrolled past what one request may reload: the reload keeps the first pages instead of emptying the list.
    while (result.current.items.length <= MAX_RELOAD_PAGE_SIZE) {
      await act(async () => result.current.loadMore());
    }
    await act(() => result.current.reload());
    expect(asked.at(-1)).toBe(MAX_RELOAD_PAGE_SIZE);
    expect(result.current.items).toHaveLength(MAX_RELOAD_PAGE_SIZE);
    expect(result.current.total).toBe(TOTAL);
    expect(result.current.hasMore).toBe(true);
  });

  test('after items were removed here, the next page skips none of those the server moved up', async () => {
    // The server's list: 0..9; pages of 3. Item 1 is removed (here and on the server) after page 1 came.
    let server = Array.from({ length: 10 }, (_, i) => i);
    const fetch = async (pageNumber: number, size: number) => ({
      items: server.slice((pageNumber - 1) * size, pageNumber * size),
      total: server.length,
    });
    const { result } = renderHook(() => usePagedList('extraction|1|', 3, fetch));
    await waitFor(() => expect(result.current.items).toEqual([0, 1, 2]));
    server = server.filter((item) => item !== 1);
    act(() =>
      result.current.patch((page) => ({
        items: page.items.filter((item) => item !== 1),
        total: page.total - 1,
      })),
    );
    expect(result.current.items).toEqual([0, 2]);
    await act(async () => result.current.loadMore());
    // Not 4, 5, 6 (page 2 of the shifted list would have skipped 3).
    await waitFor(() => expect(result.current.items).toEqual([0, 2, 3, 4, 5, 6]));
    expect(result.current.total).toBe(9);
  });

  test('an item that a new one pushed onto the next page is not shown twice', async () => {
    // Pages of 3 of 10 searches; a new search is saved on top after page 1 came: page 2 starts with item 2.
    let server = Array.from({ length: 10 }, (_, i) => ({ id: i }));
    const fetch = async (pageNumber: number, size: number) => ({
      items: server.slice((pageNumber - 1) * size, pageNumber * size),
      total: server.length,
    });
    const { result } = renderHook(() => usePagedList('saved|DONE|', 3, fetch, (item) => item.id));
    await waitFor(() => expect(result.current.items.map((item) => item.id)).toEqual([0, 1, 2]));
    server = [{ id: 10 }, ...server];
    await act(async () => result.current.loadMore());
    await waitFor(() => expect(result.current.items.map((item) => item.id)).toEqual([0, 1, 2, 3, 4]));
    expect(result.current.total).toBe(11);
  });
});
