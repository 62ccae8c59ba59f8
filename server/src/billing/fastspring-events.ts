import { badRequest } from '../lib/http-error.ts';

/**
 * FastSpring webhook bodies: `{"events":[{"id","type","live","processed","created","data":{…}}]}`.
 * `data` is an order for order.completed, a subscription for subscription.*, and `{order, subscription}`
 * for subscription.charge.completed. Only the fields this product uses are read; everything else is kept
 * in the payment record as received.
 */
export interface FastSpringEvent {
  id: string;
  type: string;
  live: boolean;
  /** Milliseconds since the epoch. */
  created: number;
  data: Record<string, unknown>;
}

export interface FsItem {
  product: string;
  quantity: number;
  subscription: string | undefined;
}

export interface FsOrder {
  id: string;
  reference: string | undefined;
  total: number | undefined;
  /** Sales tax FastSpring added on top of the price, in the order's currency. */
  tax: number | undefined;
  currency: string | undefined;
  tags: Record<string, string>;
  items: FsItem[];
}

export interface FsSubscription {
  id: string;
  product: string | undefined;
  state: string | undefined;
  /** Milliseconds since the epoch. */
  begin: number | undefined;
  next: number | undefined;
  deactivationDate: number | undefined;
  initialOrderId: string | undefined;
  tags: Record<string, string>;
  addons: { product: string; quantity: number }[];
}

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
const num = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** The events of a webhook body; a body of another shape is a 400 (after the signature check). */
export function parseWebhookBody(body: unknown): FastSpringEvent[] {
  if (!isObj(body) || !Array.isArray(body.events)) throw badRequest('A webhook body must carry "events".');
  return body.events.map((event, index) => {
    if (!isObj(event) || !str(event.id) || !str(event.type) || !isObj(event.data))
      throw badRequest(`Event ${index} needs an id, a type and data.`);
    return {
      id: str(event.id)!,
      type: str(event.type)!,
      live: event.live === true,
      created: num(event.created) ?? Date.now(),
      data: event.data,
    };
  });
}

function tagsOf(value: unknown): Record<string, string> {
  if (!isObj(value)) return {};
  return Object.fromEntries(
    Object.entries(value)
      .map(([key, v]) => [key, str(v)] as const)
      .filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** An order object: `data` of order.completed, `data.order` of subscription.charge.completed. */
export function orderOf(data: Obj): FsOrder | undefined {
  const id = str(data.id) ?? str(data.order);
  if (!id) return undefined;
  const items = Array.isArray(data.items) ? data.items.filter(isObj) : [];
  return {
    id,
    reference: str(data.reference),
    total: num(data.total),
    tax: num(data.tax),
    currency: str(data.currency),
    tags: tagsOf(data.tags),
    items: items.map((item) => ({
      product: str(item.product) ?? '',
      quantity: num(item.quantity) ?? 1,
      subscription: str(item.subscription),
    })),
  };
}

/** A subscription object (subscription.* data, or `data.subscription` of a charge when expanded). */
export function subscriptionOf(data: Obj): FsSubscription | undefined {
  const id = str(data.id) ?? str(data.subscription);
  if (!id) return undefined;
  const addons = Array.isArray(data.addons) ? data.addons.filter(isObj) : [];
  return {
    id,
    product: str(data.product),
    state: str(data.state),
    begin: num(data.begin),
    next: num(data.next) ?? num(data.nextChargeDate),
    deactivationDate: num(data.deactivationDate),
    initialOrderId: str(data.initialOrderId),
    tags: tagsOf(data.tags),
    addons: addons.map((addon) => ({
      product: str(addon.product) ?? '',
      quantity: num(addon.quantity) ?? 1,
    })),
  };
}

/** The subscription of an event: `data` itself, or `data.subscription` (an object, or only its id). */
export function eventSubscription(event: FastSpringEvent): FsSubscription | undefined {
  const nested = event.data.subscription;
  if (isObj(nested)) return subscriptionOf(nested);
  if (typeof nested === 'string' && event.type === 'subscription.charge.completed')
    return subscriptionOf({ id: nested });
  return subscriptionOf(event.data);
}

export function chargeOrderOf(event: FastSpringEvent): FsOrder | undefined {
  const order = event.data.order;
  if (isObj(order)) return orderOf(order);
  if (typeof order === 'string') return orderOf({ id: order });
  return undefined;
}
