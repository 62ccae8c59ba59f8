import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  CARD_LAYOUT_MAX_WIDTH,
  DataTable,
  type DataTableColumn,
  type DataTableProps,
} from '../../src/components/data-table';

// Issue 15 item 11: one table for every admin list and the account's users, a card per row on narrow
// screens so that nothing is wider than the screen and the row actions stay in reach.

interface Order {
  id: number;
  number: string;
  organization: string;
  amount: string;
  pending: boolean;
}

const ORDERS: Order[] = [
  { id: 1, number: 'ORD-1001', organization: 'Harbour Police Department', amount: '$750 USD', pending: true },
  { id: 2, number: 'ORD-1002', organization: 'Riverton Courier', amount: '$90 USD', pending: false },
];

const COLUMNS: DataTableColumn<Order>[] = [
  { header: 'Order', cell: (order) => order.number },
  { header: 'Organization', cell: (order) => order.organization },
  { header: 'Amount', numeric: true, cell: (order) => order.amount },
];

/** The browser's answer to the card layout's media query, changed as a resize would change it. */
function screenWidth(width: number) {
  const listeners = new Set<() => void>();
  const query = {
    get matches() {
      return width <= CARD_LAYOUT_MAX_WIDTH;
    },
    addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
  };
  vi.stubGlobal('matchMedia', (text: string) => {
    expect(text).toBe(`(max-width: ${CARD_LAYOUT_MAX_WIDTH}px)`);
    return query;
  });
  return {
    resize(next: number) {
      width = next;
      act(() => listeners.forEach((listener) => listener()));
    },
  };
}

function renderTable(props: Partial<DataTableProps<Order>> = {}) {
  const onMarkPaid = vi.fn();
  render(
    <DataTable
      caption="Orders, newest first"
      columns={COLUMNS}
      rows={ORDERS}
      rowKey={(order) => order.id}
      actions={(order) =>
        order.pending && (
          <button type="button" onClick={() => onMarkPaid(order.number)}>
            Mark as paid
          </button>
        )
      }
      empty={{ title: 'No orders match.', text: 'New orders appear here.' }}
      {...props}
    />,
  );
  return { onMarkPaid };
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the data table on a wide screen', () => {
  test('is a table named by its caption, with a header per column and a row per record', () => {
    screenWidth(1440);
    const { onMarkPaid } = renderTable();
    const table = screen.getByRole('table', { name: 'Orders, newest first' });
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((th) => th.textContent);
    expect(headers).toEqual(['Order', 'Organization', 'Amount', 'Actions']);
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(
      within(rows[1]!)
        .getAllByRole('cell')
        .map((td) => td.textContent),
    ).toEqual(['ORD-1001', 'Harbour Police Department', '$750 USD', 'Mark as paid']);
    expect(within(rows[1]!).getAllByRole('cell')[2]).toHaveProperty('className', 'data-table__num');
    // The settled order has no action.
    expect(within(rows[2]!).queryByRole('button')).toBeNull();
    fireEvent.click(within(rows[1]!).getByRole('button', { name: 'Mark as paid' }));
    expect(onMarkPaid).toHaveBeenCalledWith('ORD-1001');
    expect(document.querySelector('.data-table__cards')).toBeNull();
  });

  test('shows a row’s detail across the whole table under it', () => {
    screenWidth(1440);
    renderTable({ detail: (order) => order.id === 2 && <p>Paid on 3 March</p> });
    const rows = screen.getAllByRole('row');
    expect(rows).toHaveLength(4);
    const detailCell = within(rows[3]!).getByRole('cell');
    expect(detailCell.textContent).toBe('Paid on 3 March');
    expect(detailCell.getAttribute('colspan')).toBe('4');
  });
});

describe('the data table on a narrow screen', () => {
  test('shows each record as a card of label: value pairs with its actions, and no table', () => {
    screenWidth(390);
    const { onMarkPaid } = renderTable();
    expect(screen.queryByRole('table')).toBeNull();
    const list = screen.getByRole('list', { name: 'Orders, newest first' });
    expect(list.className).toContain('data-table__cards');
    const cards = within(list).getAllByRole('listitem');
    expect(cards).toHaveLength(2);
    expect(cards[0]!.className).toContain('data-table__card');
    const pairs = [...cards[0]!.querySelectorAll('.data-table__field')].map((field) => [
      field.querySelector('dt')?.textContent,
      field.querySelector('dd')?.textContent,
    ]);
    expect(pairs).toEqual([
      ['Order', 'ORD-1001'],
      ['Organization', 'Harbour Police Department'],
      ['Amount', '$750 USD'],
    ]);
    fireEvent.click(within(cards[0]!).getByRole('button', { name: 'Mark as paid' }));
    expect(onMarkPaid).toHaveBeenCalledWith('ORD-1001');
    expect(within(cards[1]!).queryByRole('button')).toBeNull();
  });

  test('follows the screen: a table when it widens, cards again when it narrows', () => {
    const width = screenWidth(390);
    renderTable();
    expect(screen.queryByRole('table')).toBeNull();
    width.resize(1024);
    expect(screen.getByRole('table', { name: 'Orders, newest first' })).toBeTruthy();
    width.resize(CARD_LAYOUT_MAX_WIDTH);
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.getByRole('list', { name: 'Orders, newest first' })).toBeTruthy();
  });
});

describe('the data table’s states', () => {
  test('loading: the loading placeholder and no rows', () => {
    screenWidth(1440);
    renderTable({ rows: undefined, loading: true });
    expect(screen.getByRole('status').textContent).toContain('LOADING');
    expect(screen.queryByRole('table')).toBeNull();
  });

  test('empty: the list’s own message', () => {
    screenWidth(1440);
    renderTable({ rows: [] });
    expect(screen.getByText('No orders match.')).toBeTruthy();
    expect(screen.getByText('New orders appear here.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  test('error: an alert with the message, and "Try again" asks again', () => {
    screenWidth(1440);
    const onRetry = vi.fn();
    renderTable({
      rows: undefined,
      error: { title: 'The orders could not be loaded.', text: 'Please check your connection.', onRetry },
    });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('The orders could not be loaded.');
    expect(alert.textContent).toContain('Please check your connection.');
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });
});

describe('the data table’s paging', () => {
  test('with a page count: where the list stands, and Previous and Next ask for the pages around it', () => {
    screenWidth(1440);
    const onPageChange = vi.fn();
    renderTable({ paging: { page: 2, pageCount: 3, onPageChange, summary: '61 orders' } });
    const pager = screen.getByRole('navigation', { name: 'Pages' });
    expect(pager.textContent).toContain('Page 2 of 3 · 61 orders');
    fireEvent.click(within(pager).getByRole('button', { name: 'Previous' }));
    fireEvent.click(within(pager).getByRole('button', { name: 'Next' }));
    expect(onPageChange.mock.calls).toEqual([[1], [3]]);
  });

  test('without a count: Next only while there is a next page, Previous not on the first', () => {
    screenWidth(1440);
    const onPageChange = vi.fn();
    renderTable({ paging: { page: 1, hasNext: true, onPageChange } });
    const pager = screen.getByRole('navigation', { name: 'Pages' });
    expect(pager.textContent).toContain('Page 1');
    expect(within(pager).getByRole('button', { name: 'Previous' })).toHaveProperty('disabled', true);
    fireEvent.click(within(pager).getByRole('button', { name: 'Next' }));
    expect(onPageChange).toHaveBeenCalledWith(2);
  });

  test('a single page without a summary has no pager', () => {
    screenWidth(1440);
    renderTable({ paging: { page: 1, pageCount: 1, onPageChange: vi.fn() } });
    expect(screen.queryByRole('navigation', { name: 'Pages' })).toBeNull();
  });

  test('the pager stays under the cards on a narrow screen', () => {
    screenWidth(390);
    const onPageChange = vi.fn();
    renderTable({ paging: { page: 1, hasNext: true, onPageChange } });
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(onPageChange).toHaveBeenCalledWith(2);
  });
});
