import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DEADLINE_POLICY as NY,
  deliverByFor,
  dueSoonAt,
  localDateOf,
  parseCalendarDate,
  zonedInstant,
} from '../../src/domain/deadline-policy.ts';

describe('deadline policy', () => {
  it('is 20:00 New York time on the in-hand date, daylight saving included', () => {
    // EDT (UTC-4) in July, EST (UTC-5) in December.
    expect(deliverByFor('2026-07-10', null, NY).toISOString()).toBe('2026-07-11T00:00:00.000Z');
    expect(deliverByFor('2026-12-10', null, NY).toISOString()).toBe('2026-12-11T01:00:00.000Z');
    // The days the clocks change.
    expect(deliverByFor('2026-03-08', null, NY).toISOString()).toBe('2026-03-09T00:00:00.000Z');
    expect(deliverByFor('2026-11-01', null, NY).toISOString()).toBe('2026-11-02T01:00:00.000Z');
  });

  it("is the evening before when the in-hand date is the event's day (in the policy's zone)", () => {
    // 19:30 New York on 12 Dec is 00:30 UTC on the 13th: the event's day is still the 12th there.
    const event = new Date('2026-12-13T00:30:00Z');
    expect(deliverByFor('2026-12-12', event, NY).toISOString()).toBe('2026-12-12T01:00:00.000Z');
    expect(deliverByFor('2026-12-11', event, NY).toISOString()).toBe('2026-12-12T01:00:00.000Z');
    expect(deliverByFor('2026-12-10', event, NY).toISOString()).toBe('2026-12-11T01:00:00.000Z');
  });

  it('refuses an in-hand date after the event', () => {
    expect(() => deliverByFor('2026-12-13', new Date('2026-12-13T00:30:00Z'), NY)).toThrow(/lies after the event's day \(2026-12-12\)/);
  });

  it('follows another zone and local time', () => {
    const policy = { timeZone: 'Europe/London', localTime: '18:30', dueSoonBeforeMs: 3600_000 };
    expect(deliverByFor('2026-06-01', null, policy).toISOString()).toBe('2026-06-01T17:30:00.000Z');
    expect(dueSoonAt(deliverByFor('2026-06-01', null, policy), policy).toISOString()).toBe('2026-06-01T16:30:00.000Z');
    expect(zonedInstant('2026-01-15', '09:00', 'Asia/Kolkata').toISOString()).toBe('2026-01-15T03:30:00.000Z');
    expect(localDateOf(new Date('2026-01-15T20:00:00Z'), 'Asia/Tokyo')).toBe('2026-01-16');
  });

  it('takes only calendar dates', () => {
    expect(parseCalendarDate('2028-02-29', 'in_hand_on')).toBe('2028-02-29');
    for (const bad of ['2026-02-30', '2026-13-01', '26-01-01', '2026-01-01T00:00:00Z', 20260101, null]) {
      expect(() => parseCalendarDate(bad, 'in_hand_on'), String(bad)).toThrow(/in_hand_on: must be a calendar date/);
    }
  });
});
