import { describe, expect, it } from 'vitest';
import { readTrackerEvent } from '../../src/carriers/easypost-adapter.ts';
import { chooseRate, type QuotedRate } from '../../src/carriers/service-choice.ts';
import { recorded } from '../support/easypost-stub.ts';

const now = Date.parse('2026-11-20T10:00:00Z');
const day = 86_400_000;
const rate = (service: string, price: string, days: number | null): QuotedRate => ({
  id: `rate_${service}`,
  carrier: 'UPS',
  service,
  rate: price,
  deliveryAt: days === null ? null : new Date(now + days * day),
});
const RATES = [rate('Ground', '9.50', 5), rate('2ndDayAir', '21.30', 2), rate('NextDayAir', '48.10', 1), rate('Mystery', '5.00', null)];

describe('the service a label is bought with (D-113)', () => {
  it('the seller’s service when named (any case); none quoted: nothing', () => {
    expect(chooseRate(RATES, 'ground', null)?.rate.service).toBe('Ground');
    expect(chooseRate(RATES, 'Overnight', null)).toBeUndefined();
    expect(chooseRate([], null, null)).toBeUndefined();
  });

  it('the cheapest expected before deliver_by', () => {
    const choice = chooseRate(RATES, null, new Date(now + 3 * day))!;
    expect(choice.rate.service).toBe('2ndDayAir');
    expect(choice.reason).toMatch(/^the cheapest service expected before deliver_by/);
    expect(chooseRate(RATES, null, new Date(now + 6 * day))!.rate.service).toBe('Ground');
  });

  it('else the fastest, saying why', () => {
    const late = chooseRate(RATES, null, new Date(now + day / 2))!;
    expect(late.rate.service).toBe('NextDayAir');
    expect(late.reason).toMatch(/^no service is expected before deliver_by/);
    expect(chooseRate(RATES, null, null)).toMatchObject({
      rate: { service: 'NextDayAir' },
      reason: 'the order has no deliver_by: the fastest',
    });
  });
});

describe("EasyPost's tracker events in our terms", () => {
  it('maps the recorded tracker.updated: pre_transit dropped, locations joined, the code normalised', () => {
    const event = readTrackerEvent(recorded('tracker-updated-delivered.json'))!;
    expect(event).toMatchObject({
      eventId: 'evt_delivered0000000000000000000001',
      trackingCode: '1Z5R89390357567127',
      trackerId: 'trk_0000000000000000000000000000001',
      estimatedDeliveryAt: '2026-11-22T15:00:00Z',
    });
    expect(event.scans.map((s) => s.status)).toEqual(['in_transit', 'out_for_delivery', 'delivered']);
    expect(event.scans[0]).toEqual({
      status: 'in_transit',
      occurred_at: '2026-11-21T02:10:00Z',
      location: 'NEW YORK, NY, 10004, US',
      description: 'Departed from facility',
    });
  });

  it('maps failure, return_to_sender and available_for_pickup; ignores other events', () => {
    const base = recorded('tracker-updated-in-transit.json');
    const detail = (status: string) => ({ status, datetime: '2026-11-21T05:00:00Z', message: status, tracking_location: null });
    base.result.tracking_details = [detail('failure'), detail('return_to_sender'), detail('available_for_pickup'), detail('cancelled')];
    expect(readTrackerEvent(base)!.scans.map((s) => s.status)).toEqual(['exception', 'returned', 'exception']);
    expect(readTrackerEvent({ ...base, description: 'batch.updated' })).toBeNull();
    expect(readTrackerEvent({ ...base, result: { ...base.result, tracking_code: '' } })).toBeNull();
    expect(readTrackerEvent(null)).toBeNull();
  });
});
