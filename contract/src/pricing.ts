import type { PlanType } from './api-types.ts';
import type { FieldErrors } from './validation.ts';

/**
 * Prices, plan periods and checkout rules of spec 001 §2, §3, §5 and §9: the one computation the pricing
 * page, the server (orders, FastSpring sessions, plans) and the proforma invoice share.
 *
 * The additional user costs 50 USD per month: the specification's computation is authoritative
 * (ARCHITECTURE.md §5), so no user-facing text may say 100.
 */
export const CURRENCY = 'USD';
/** Monthly price of a plan, the first user included. */
export const BASE_PRICE_USD = 100;
/** Monthly price of every user after the first. */
export const ADDITIONAL_USER_PRICE_USD = 50;
export const MIN_USERS = 1;
export const MAX_USERS = 100;
export const MIN_MONTHS = 1;
export const MAX_MONTHS = 12;
export const DEFAULT_MONTHS = 1;
/** A fixed period of this many months is the annual plan… */
export const ANNUAL_MONTHS = 12;
/** …and costs this much less (spec 000 §1 and §9: "Annual is 20% cheaper"). */
export const ANNUAL_DISCOUNT_PERCENT = 20;
/** Refund window after activation (spec 000 §9), the trial excluded. */
export const REFUND_DAYS = 14;
/** The card checkout push waits this long after the last change (spec 001 §9). */
export const CHECKOUT_DEBOUNCE_MS = 500;
/** How long a copy-to-clipboard field says "Copied to clipboard" (spec 001 §9). */
export const COPY_HINT_MS = 500;
/**
 * A plan may be ordered to start at most this many months after today. The longest period sold is 12
 * months, so a year ahead covers every honest "start when the current one ends"; a start years away is a
 * mistyped year, and would tie up a proforma invoice and the organization's one pending order for nothing.
 */
export const MAX_START_MONTHS_AHEAD = 12;

export type PlanKind = 'MONTHLY' | 'FIXED';

/** FastSpring product paths (spec 001 §3). */
export const FASTSPRING_PRODUCTS = {
  fixed: 'osint-license',
  monthly: 'osint-license-subscription',
  additionalSeat: 'additional-seat',
} as const;

/** Users 1–100, whole numbers; anything that is not a number becomes 1 (spec 001 §5). */
export function normalizeUserCount(value: unknown): number {
  return clampInteger(value, MIN_USERS, MAX_USERS);
}

/** Months of a fixed period, 1–12; anything that is not a number becomes 1. */
export function normalizeMonths(value: unknown): number {
  return clampInteger(value, MIN_MONTHS, MAX_MONTHS);
}

function clampInteger(value: unknown, min: number, max: number): number {
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  if (!Number.isFinite(number) || (typeof value === 'string' && value.trim() === '')) return min;
  return Math.min(max, Math.max(min, Math.trunc(number)));
}

/**
 * The user-count field as the user types: digits only; a value above 100 is refused (the field keeps its
 * previous value); an empty or non-numeric entry becomes 1.
 */
export function typedUserCount(previous: number, typed: string): number {
  const digits = typed.replace(/\D/g, '');
  if (digits === '') return MIN_USERS;
  const value = Number(digits);
  if (value > MAX_USERS) return previous;
  return normalizeUserCount(value);
}

export interface PriceInput {
  kind: PlanKind;
  users: unknown;
  /** Fixed periods only; a monthly subscription is priced per month. */
  months?: unknown;
}

export interface PriceBreakdown {
  kind: PlanKind;
  /** 1 for a monthly subscription (the price of one billing period). */
  months: number;
  users: number;
  additionalUsers: number;
  /** 100 USD per month, the first user included. */
  basePrice: number;
  /** 50 USD per additional user per month. */
  additionalUserFee: number;
  /** Base price plus additional user fee, before the discount. */
  subtotal: number;
  /** 20 % of the subtotal for a 12-month fixed period (the annual discount), else 0. */
  discount: number;
  /** 20 for the annual plan, else 0. */
  discountPercent: number;
  total: number;
  currency: typeof CURRENCY;
  /** "Billed monthly" or "One time payment" (spec 001 §2). */
  billing: 'Billed monthly' | 'One time payment';
}

/**
 * Monthly: 100 + 50 × (users − 1) per month. Fixed: 100 × months + 50 × months × (users − 1), paid once;
 * a 12-month fixed period 20 % less (12 months for one user: 1,200 − 240 = 960 USD). Users and months are
 * normalised first, so any input gives a price the server would also charge.
 */
export function computePrice(input: PriceInput): PriceBreakdown {
  const users = normalizeUserCount(input.users);
  const months = input.kind === 'FIXED' ? normalizeMonths(input.months) : 1;
  const additionalUsers = users - 1;
  return breakdown(
    input.kind,
    months,
    users,
    additionalUsers,
    BASE_PRICE_USD * months,
    ADDITIONAL_USER_PRICE_USD * months * additionalUsers,
  );
}

/**
 * "Add users" to a fixed period in force: only the additional user fee, 50 USD per added user for each
 * month (or part of one) left of the plan; the base price is already paid. `users` is the count added.
 */
export function computeAddUsersPrice(input: { users: unknown; months: unknown }): PriceBreakdown {
  const added = clampInteger(input.users, 1, MAX_USERS - 1);
  const months = normalizeMonths(input.months);
  return breakdown('FIXED', months, added, added, 0, ADDITIONAL_USER_PRICE_USD * months * added);
}

function breakdown(
  kind: PlanKind,
  months: number,
  users: number,
  additionalUsers: number,
  basePrice: number,
  additionalUserFee: number,
): PriceBreakdown {
  const subtotal = basePrice + additionalUserFee;
  const discountPercent = kind === 'FIXED' && months === ANNUAL_MONTHS ? ANNUAL_DISCOUNT_PERCENT : 0;
  // Every price is a multiple of 10 USD a month, so 20 % of it is whole dollars.
  const discount = Math.round((subtotal * discountPercent) / 100);
  return {
    kind,
    months,
    users,
    additionalUsers,
    basePrice,
    additionalUserFee,
    subtotal,
    discount,
    discountPercent,
    total: subtotal - discount,
    currency: CURRENCY,
    billing: kind === 'MONTHLY' ? 'Billed monthly' : 'One time payment',
  };
}

/**
 * Unit prices of the card checkout's items, discount included, so that FastSpring charges exactly
 * `price.total`: the licence per month (quantity = months) and an additional seat for the whole period
 * (quantity = additional users).
 */
export function checkoutUnitPrices(price: PriceBreakdown): { licence: number; additionalSeat: number } {
  const factor = 100 - price.discountPercent;
  return {
    licence: (BASE_PRICE_USD * factor) / 100,
    additionalSeat: (ADDITIONAL_USER_PRICE_USD * price.months * factor) / 100,
  };
}

/** The discount line of the order summary, the payment modal and the proforma invoice. */
export const ANNUAL_DISCOUNT_LABEL = `Annual discount (${ANNUAL_DISCOUNT_PERCENT}%)`;

/** "$750" — the invoice and the page show amounts in whole US dollars with a $ sign. */
export function formatUsd(amount: number): string {
  const fixed = Number.isInteger(amount) ? String(amount) : amount.toFixed(2);
  return `$${fixed.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

export function monthsLabel(months: number): string {
  return `${months} ${months === 1 ? 'month' : 'months'}`;
}

/** The bank transfer title of spec 001 §9: "OSINT, N month(s), organisation". */
export function transferTitle(months: number, organisation: string): string {
  return `OSINT, ${monthsLabel(months)}, ${organisation.trim()}`;
}

// ---- Dates -------------------------------------------------------------------------------------------
// Plan dates are calendar days written YYYY-MM-DD. A plan covers [start 00:00 UTC, end 00:00 UTC).

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

function parts(date: string): [number, number, number] {
  const match = ISO_DATE.exec(date);
  if (!match || !isIsoDate(date)) throw new RangeError(`not a date: ${date}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function isoOf(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Days of a month (1–12), leap years counted. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Start date plus whole months, with the month-end adjustments of spec 001 §5: a day that the target month
 * lacks becomes day 28 in February (every year, as the specification says) and day 30 in a 30-day month;
 * so a start on the 31st ends on the 30th of a 30-day month, and the 29th–31st end on 28 February.
 */
export function addMonths(start: string, months: number): string {
  const [year, month, day] = parts(start);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  const targetMonth = (index % 12) + 1;
  const lastDay = targetMonth === 2 ? 28 : daysInMonth(targetYear, targetMonth);
  return isoOf(targetYear, targetMonth, Math.min(day, lastDay));
}

/**
 * Months left from `start` until a plan's `end` (YYYY-MM-DD, exclusive), a part month counted whole: what
 * "Add users" charges for. At least 1; beyond 12 months it answers 13 (longer than any period sold).
 */
export function monthsUntil(start: string, end: string): number {
  for (let months = 1; months <= MAX_MONTHS; months++) if (addMonths(start, months) >= end) return months;
  return MAX_MONTHS + 1;
}

/** End date of a plan: start + months for a fixed period, start + 1 month for a monthly billing period. */
export function planEndDate(kind: PlanKind, start: string, months: unknown = DEFAULT_MONTHS): string {
  return addMonths(start, kind === 'FIXED' ? normalizeMonths(months) : 1);
}

/** The local calendar day of `now` (the date picker's "today"). */
export function localIsoDate(now: Date = new Date()): string {
  return isoOf(now.getFullYear(), now.getMonth() + 1, now.getDate());
}

/** The UTC calendar day of `at` (the server's "today"). */
export function utcIsoDate(at: Date = new Date()): string {
  return at.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const [y, m, d] = parts(date);
  return utcIsoDate(new Date(Date.UTC(y, m - 1, d + days)));
}

/** 00:00 UTC of a calendar day. */
export function startOfUtcDay(date: string): Date {
  const [y, m, d] = parts(date);
  return new Date(Date.UTC(y, m - 1, d));
}

// ---- Bank transfer ----------------------------------------------------------------------------------

/** Buyer of a bank-transfer order (spec 001 §3); `name` is the organisation. */
export interface Buyer {
  name: string;
  street: string;
  cityPostcode: string;
  city: string;
  country: string;
}

export type BuyerField = keyof Buyer;

export const MAX_BUYER_FIELD_LENGTH = 200;

export const BUYER_LABELS: Record<BuyerField, string> = {
  name: 'Organisation',
  street: 'Street',
  cityPostcode: 'Postal code',
  city: 'City',
  country: 'Country',
};

export const BILLING_MESSAGES = {
  buyerRequired: {
    name: 'Organisation is required',
    street: 'Street is required',
    city: 'City is required',
    country: 'Country is required',
  } satisfies Record<Exclude<BuyerField, 'cityPostcode'>, string>,
  postalCode: 'Postal code must contain only numbers',
  tooLong: `At most ${MAX_BUYER_FIELD_LENGTH} characters`,
  orderFailure: 'Something went wrong during the order. Please try again.',
  orderSuccess:
    'Your order has been successfully confirmed. To access the platform, please complete your payment. Please note that bank transfers may take 1–5 business days to process.',
  noOrderFound: 'No order found.',
  copied: 'Copied to clipboard',
  startDateInPast: 'The start date cannot be in the past.',
  startDateTooFar: `The start date can be at most ${MAX_START_MONTHS_AHEAD} months ahead.`,
  orderPending: 'An order of your organization is already waiting for payment.',
  paidPlanExists:
    'Your organization already has a paid plan, so a new one cannot be bought. A fixed period can be renewed or given more users from the pricing page; a subscription renews itself.',
  orderNotPending: 'Only an order that is waiting for payment can be cancelled.',
  orderCancelled: 'Your order has been cancelled. You can place a new order.',
  noFixedPlanInForce: 'Renewing and adding users are available while a fixed-period plan is in force.',
  ownersOnly: 'Only the owner of the organization can buy a plan.',
  checkoutNotConfigured:
    'Card checkout is not configured on this server. Please pay by bank transfer or contact support.',
  awaitingPayment:
    'We are awaiting confirmation of your payment. Your subscription activates automatically once the payment is verified.',
} as const;

/**
 * Spec 001 §5: organisation, street, city and country non-blank after trimming; the postal code digits and
 * hyphens only. The postal code is not among the required fields (not every country has one): left
 * blank, it is not printed.
 */
export function validateBuyer(buyer: Partial<Record<BuyerField, unknown>>): FieldErrors<BuyerField> {
  const errors: FieldErrors<BuyerField> = {};
  for (const field of Object.keys(BUYER_LABELS) as BuyerField[]) {
    const raw = buyer[field];
    const value = typeof raw === 'string' ? raw.trim() : '';
    if (field === 'cityPostcode') {
      if (value.length > MAX_BUYER_FIELD_LENGTH) errors[field] = BILLING_MESSAGES.tooLong;
      else if (value && !/^[0-9-]+$/.test(value)) errors[field] = BILLING_MESSAGES.postalCode;
    } else if (!value) errors[field] = BILLING_MESSAGES.buyerRequired[field];
    else if (value.length > MAX_BUYER_FIELD_LENGTH) errors[field] = BILLING_MESSAGES.tooLong;
  }
  return errors;
}

// ---- API shapes ------------------------------------------------------------------------------------

export const PLAN_TYPE_LABELS: Record<PlanType, string> = {
  SUBSCRIPTION: 'Subscription',
  ONE_TIME_PAYMENT: 'Fixed Period',
  VIRTUAL: 'Fixed Period',
  TRIAL: 'Trial',
};

export interface BillingPlanDto {
  id: number;
  planType: PlanType;
  seatLimit: number;
  /** YYYY-MM-DD and ISO instants of the period [start, end). */
  startDate: string;
  endDate: string;
  /** Whole months the period spans (1 for a monthly subscription's current period). */
  periodMonths: number;
  /** Users of the organization who hold a seat now. */
  usedSeats: number;
}

/** GET /api/user/organization/all-billing-plans */
export interface AllBillingPlans {
  expiredBillingPlan: BillingPlanDto | null;
  activeBillingPlan: BillingPlanDto | null;
  futureBillingPlan: BillingPlanDto | null;
}

export type OrderStatus = 'PENDING' | 'COMPLETED' | 'CANCELED';
/** What an order buys: a new plan, the renewal of the plan in force, or users added to it. */
export type OrderType = 'PLAN' | 'RENEWAL' | 'ADD_USERS';
export type PaymentMethod = 'BANK_TRANSFER' | 'CARD';

/** GET /api/user/organization/orders (newest first) */
export interface OrderDto {
  id: number;
  orderNumber: string;
  orderStatus: OrderStatus;
  paymentMethod: PaymentMethod;
  planKind: PlanKind;
  startDate: string;
  endDate: string;
  months: number;
  seatLimit: number;
  basePrice: number;
  additionalUserFee: number;
  /** The annual discount (0 unless 12 months). */
  discount: number;
  amount: number;
  currency: string;
  orderType: OrderType;
  /** ADD_USERS: the users added (seatLimit is the plan's new total); null otherwise. */
  addedUsers: number | null;
  createdAt: string;
  paidAt: string | null;
  /** The final (paid) invoice's number: set when a bank order is marked paid. */
  finalInvoiceNumber: string | null;
}

/** Optional buyer references printed on the invoices of any bank order (see invoice.ts). */
export interface InvoiceReferences {
  vatId?: string | undefined;
  purchaseOrder?: string | undefined;
}

/** POST /api/order */
export interface BankOrderRequest extends InvoiceReferences {
  seatAmount: number;
  startDate: string;
  period: number;
  buyer: Buyer;
}

/** POST /api/order/renew: the plan in force again, from the day after it ends. */
export interface RenewOrderRequest extends InvoiceReferences {
  seatAmount: number;
  period: number;
  buyer: Buyer;
}

/** POST /api/order/add-users: users added to the plan in force for its remaining months. */
export interface AddUsersOrderRequest extends InvoiceReferences {
  users: number;
  buyer: Buyer;
}

/** The bank details of the finalize step and the invoice; the server's configuration fills them. */
export interface BankDetails {
  accountName: string;
  accountNumber: string;
  bankName: string;
  swift: string;
  address: string;
}

/** GET /api/fastspring/config */
export interface CheckoutConfig {
  /** Card checkout works: a storefront and a webhook secret are configured. */
  configured: boolean;
  storefront: string;
  accessKey: string;
  scriptUrl: string;
  bank: BankDetails;
}

/** POST /api/fastspring/create-session */
export interface CheckoutSessionRequest {
  organizationId: number;
  startDate: string;
  productSelections: { productId: string; quantity: number }[];
}

/** `key` is empty when the payload is plain JSON (no private key configured: test storefronts only). */
export interface CheckoutSessionResponse {
  payload: string;
  key: string;
}

/** What a pricing page selection sends to the card checkout (spec 001 §3, "Checkout payload"). */
export function productSelections(kind: PlanKind, users: unknown, months: unknown) {
  const price = computePrice({ kind, users, months });
  const selections: { productId: string; quantity: number }[] = [
    {
      productId: kind === 'FIXED' ? FASTSPRING_PRODUCTS.fixed : FASTSPRING_PRODUCTS.monthly,
      quantity: kind === 'FIXED' ? price.months : 1,
    },
  ];
  // Spec 001 §5: the additional seat is sent only when its quantity is above 0.
  if (price.additionalUsers > 0)
    selections.push({ productId: FASTSPRING_PRODUCTS.additionalSeat, quantity: price.additionalUsers });
  return selections;
}
