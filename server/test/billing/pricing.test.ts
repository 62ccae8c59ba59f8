import {
  ANNUAL_DISCOUNT_LABEL,
  ANNUAL_DISCOUNT_PERCENT,
  ANNUAL_MONTHS,
  checkoutUnitPrices,
  computeAddUsersPrice,
  monthsUntil,
  addMonths,
  BASE_PRICE_USD,
  ADDITIONAL_USER_PRICE_USD,
  computePrice,
  formatUsd,
  isIsoDate,
  normalizeMonths,
  normalizeUserCount,
  planEndDate,
  productSelections,
  transferTitle,
  typedUserCount,
  validateBuyer,
  BILLING_MESSAGES,
} from '@osint/contract/pricing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// Every rule of spec 001 §9 (prices, limits) and §5 (user count, months, end dates, buyer form).

describe('prices', () => {
  it('uses 100 USD per month with the first user included and 50 USD per additional user', () => {
    expect(BASE_PRICE_USD).toBe(100);
    expect(ADDITIONAL_USER_PRICE_USD).toBe(50);
  });

  it('prices a fixed period of 3 months for 4 users at 750 USD', () => {
    const price = computePrice({ kind: 'FIXED', users: 4, months: 3 });
    expect(price).toMatchObject({
      months: 3,
      users: 4,
      additionalUsers: 3,
      basePrice: 300,
      additionalUserFee: 450,
      total: 750,
      currency: 'USD',
      billing: 'One time payment',
    });
  });

  it('prices a monthly subscription per month: 100 + 50 per additional user, billed monthly', () => {
    expect(computePrice({ kind: 'MONTHLY', users: 1 })).toMatchObject({
      total: 100,
      billing: 'Billed monthly',
    });
    expect(computePrice({ kind: 'MONTHLY', users: 4 })).toMatchObject({
      basePrice: 100,
      additionalUserFee: 150,
      total: 250,
    });
    // A monthly price ignores a months value: switching to monthly resets the period to 1.
    expect(computePrice({ kind: 'MONTHLY', users: 2, months: 7 })).toMatchObject({ months: 1, total: 150 });
  });

  it('one user costs only the base price; 12 months × 100 users is the largest order', () => {
    expect(computePrice({ kind: 'FIXED', users: 1, months: 1 }).total).toBe(100);
    expect(computePrice({ kind: 'FIXED', users: 1, months: 12 }).subtotal).toBe(1200);
    expect(computePrice({ kind: 'FIXED', users: 100, months: 12 }).total).toBe(
      ((1200 + 50 * 12 * 99) * 80) / 100,
    );
  });

  it('total = 100 × months + 50 × months × (users − 1) for every allowed selection, 12 months 20 % less', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 12 }), (users, months) => {
        const price = computePrice({ kind: 'FIXED', users, months });
        const full = 100 * months + 50 * months * (users - 1);
        expect(price.total).toBe(months === 12 ? (full * 80) / 100 : full);
        expect(price.basePrice + price.additionalUserFee - price.discount).toBe(price.total);
      }),
    );
  });

  it('formats amounts in USD with a $ sign', () => {
    expect(formatUsd(750)).toBe('$750');
    expect(formatUsd(60_600)).toBe('$60,600');
    expect(formatUsd(12.5)).toBe('$12.50');
  });
});

describe('user count and months', () => {
  it('forces users to an integer from 1 to 100; non-numeric becomes 1', () => {
    expect(normalizeUserCount(4)).toBe(4);
    expect(normalizeUserCount('7')).toBe(7);
    expect(normalizeUserCount(3.9)).toBe(3);
    expect(normalizeUserCount(0)).toBe(1);
    expect(normalizeUserCount(-5)).toBe(1);
    expect(normalizeUserCount(101)).toBe(100);
    expect(normalizeUserCount('abc')).toBe(1);
    expect(normalizeUserCount('')).toBe(1);
    expect(normalizeUserCount(undefined)).toBe(1);
    expect(normalizeUserCount(Number.NaN)).toBe(1);
  });

  it('blocks typing above 100 and turns an empty or non-numeric entry into 1', () => {
    expect(typedUserCount(10, '100')).toBe(100);
    expect(typedUserCount(10, '101')).toBe(10);
    expect(typedUserCount(99, '990')).toBe(99);
    expect(typedUserCount(5, '')).toBe(1);
    expect(typedUserCount(5, 'x')).toBe(1);
    expect(typedUserCount(5, '0')).toBe(1);
    expect(typedUserCount(5, '12a')).toBe(12);
  });

  it('keeps a fixed period within 1 to 12 months, default 1', () => {
    expect(normalizeMonths(undefined)).toBe(1);
    expect(normalizeMonths(0)).toBe(1);
    expect(normalizeMonths(12)).toBe(12);
    expect(normalizeMonths(13)).toBe(12);
    expect(normalizeMonths('6')).toBe(6);
  });
});

describe('end dates (spec 001 §5)', () => {
  it('adds the months to the start date', () => {
    expect(planEndDate('FIXED', '2025-01-15', 3)).toBe('2025-04-15');
    expect(planEndDate('FIXED', '2025-11-10', 2)).toBe('2026-01-10');
    expect(planEndDate('FIXED', '2025-03-01', 12)).toBe('2026-03-01');
    expect(planEndDate('MONTHLY', '2025-06-20')).toBe('2025-07-20');
  });

  it('ends on 28 February when the start day does not exist in February, leap years included', () => {
    expect(addMonths('2025-01-31', 1)).toBe('2025-02-28');
    expect(addMonths('2025-01-29', 1)).toBe('2025-02-28');
    expect(addMonths('2028-01-30', 1)).toBe('2028-02-28');
    expect(addMonths('2025-01-28', 1)).toBe('2025-02-28');
    expect(addMonths('2025-11-30', 3)).toBe('2026-02-28');
  });

  it('ends on the 30th when a 31st start lands in a 30-day month', () => {
    expect(addMonths('2025-03-31', 1)).toBe('2025-04-30');
    expect(addMonths('2025-08-31', 1)).toBe('2025-09-30');
    expect(addMonths('2025-10-31', 1)).toBe('2025-11-30');
    expect(addMonths('2025-05-31', 1)).toBe('2025-06-30');
    // A 31-day target month keeps the 31st.
    expect(addMonths('2025-05-31', 2)).toBe('2025-07-31');
  });

  it('always ends after the start and in the right month', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2024-01-01'), max: new Date('2035-12-31'), noInvalidDate: true }),
        fc.integer({ min: 1, max: 12 }),
        (date, months) => {
          const start = date.toISOString().slice(0, 10);
          const end = planEndDate('FIXED', start, months);
          expect(isIsoDate(end)).toBe(true);
          expect(end > start).toBe(true);
          const monthIndex = (iso: string) => Number(iso.slice(0, 4)) * 12 + Number(iso.slice(5, 7)) - 1;
          expect(monthIndex(end) - monthIndex(start)).toBe(months);
        },
      ),
    );
  });

  it('recognises only real calendar days', () => {
    expect(isIsoDate('2025-02-28')).toBe(true);
    expect(isIsoDate('2025-02-29')).toBe(false);
    expect(isIsoDate('2028-02-29')).toBe(true);
    expect(isIsoDate('2025-13-01')).toBe(false);
    expect(isIsoDate('2025-1-01')).toBe(false);
  });
});

describe('checkout and bank transfer', () => {
  it('sends the plan product with its quantity and the additional seat only when above 0', () => {
    expect(productSelections('FIXED', 4, 3)).toEqual([
      { productId: 'osint-license', quantity: 3 },
      { productId: 'additional-seat', quantity: 3 },
    ]);
    expect(productSelections('MONTHLY', 1, 5)).toEqual([
      { productId: 'osint-license-subscription', quantity: 1 },
    ]);
    expect(productSelections('MONTHLY', 2, 1)).toEqual([
      { productId: 'osint-license-subscription', quantity: 1 },
      { productId: 'additional-seat', quantity: 1 },
    ]);
  });

  it('titles the transfer "OSINT, N month(s), organisation"', () => {
    expect(transferTitle(1, ' Harbour Police ')).toBe('OSINT, 1 month, Harbour Police');
    expect(transferTitle(3, 'Harbour Police')).toBe('OSINT, 3 months, Harbour Police');
  });

  it('validates the buyer: organisation, street, city and country non-blank; a postal code of digits and hyphens, or none', () => {
    const valid = {
      name: 'Harbour Police',
      street: '1 Quay Road',
      cityPostcode: '12-345',
      city: 'Port Town',
      country: 'Freedonia',
    };
    expect(validateBuyer(valid)).toEqual({});
    expect(validateBuyer({ ...valid, name: '   ', country: '' })).toEqual({
      name: BILLING_MESSAGES.buyerRequired.name,
      country: BILLING_MESSAGES.buyerRequired.country,
    });
    expect(validateBuyer({ ...valid, cityPostcode: 'AB 123' }).cityPostcode).toBe(
      'Postal code must contain only numbers',
    );
    // Spec 001 §5 requires the four others, not the postal code (not every country has one).
    expect(validateBuyer({ ...valid, cityPostcode: ' ' })).toEqual({});
    expect(validateBuyer({ ...valid, cityPostcode: '' })).toEqual({});
    expect(validateBuyer({ ...valid, cityPostcode: '12 345' }).cityPostcode).toBe(
      'Postal code must contain only numbers',
    );
    expect(validateBuyer({})).toEqual({
      name: 'Organisation is required',
      street: 'Street is required',
      city: 'City is required',
      country: 'Country is required',
    });
  });
});

describe('annual discount (spec 000 §1, §9: annual is 20% cheaper)', () => {
  it('takes 20 % off a 12-month fixed period: 1,200 − 240 = 960 USD for one user', () => {
    expect(ANNUAL_MONTHS).toBe(12);
    expect(ANNUAL_DISCOUNT_PERCENT).toBe(20);
    expect(computePrice({ kind: 'FIXED', users: 1, months: 12 })).toMatchObject({
      basePrice: 1200,
      additionalUserFee: 0,
      subtotal: 1200,
      discountPercent: 20,
      discount: 240,
      total: 960,
    });
    expect(computePrice({ kind: 'FIXED', users: 4, months: 12 })).toMatchObject({
      subtotal: 1200 + 1800,
      discount: 600,
      total: 2400,
    });
    expect(ANNUAL_DISCOUNT_LABEL).toBe('Annual discount (20%)');
  });

  it('leaves every other period and the monthly subscription at full price', () => {
    for (let months = 1; months < 12; months++)
      expect(computePrice({ kind: 'FIXED', users: 3, months })).toMatchObject({
        discount: 0,
        discountPercent: 0,
        total: 200 * months,
      });
    expect(computePrice({ kind: 'MONTHLY', users: 1, months: 12 })).toMatchObject({
      discount: 0,
      total: 100,
    });
  });

  it('is whole dollars for any user count, and the checkout unit prices add up to the total', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 12 }), (users, months) => {
        const price = computePrice({ kind: 'FIXED', users, months });
        expect(Number.isInteger(price.discount)).toBe(true);
        expect(price.total).toBe(price.subtotal - price.discount);
        const unit = checkoutUnitPrices(price);
        expect(unit.licence * price.months + unit.additionalSeat * price.additionalUsers).toBe(price.total);
      }),
    );
    expect(checkoutUnitPrices(computePrice({ kind: 'FIXED', users: 2, months: 12 }))).toEqual({
      licence: 80,
      additionalSeat: 480,
    });
  });
});

describe('renewing and adding users', () => {
  it('adds users at 50 USD per added user for every month left, without a base price', () => {
    expect(computeAddUsersPrice({ users: 2, months: 3 })).toMatchObject({
      users: 2,
      additionalUsers: 2,
      basePrice: 0,
      additionalUserFee: 300,
      discount: 0,
      total: 300,
    });
    // Twelve months left: the annual discount applies as to any 12-month fixed period.
    expect(computeAddUsersPrice({ users: 1, months: 12 })).toMatchObject({ subtotal: 600, total: 480 });
  });

  it('counts the months left with a part month as a whole one', () => {
    expect(monthsUntil('2026-01-15', '2026-02-15')).toBe(1);
    expect(monthsUntil('2026-01-15', '2026-02-16')).toBe(2);
    expect(monthsUntil('2026-01-15', '2026-01-16')).toBe(1);
    expect(monthsUntil('2026-01-31', '2026-04-30')).toBe(3);
    expect(monthsUntil('2026-01-01', '2027-01-01')).toBe(12);
    expect(monthsUntil('2026-01-01', '2027-01-02')).toBe(13);
  });
});
