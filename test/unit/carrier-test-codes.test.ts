import { describe, expect, it } from 'vitest';
import { refuseTestCodeOnLive, scriptOf, TEST_TRACKING_CODES, testCodeOf } from '../../src/sandbox/carrier-test-codes.ts';

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;

describe('the carrier simulator’s test codes', () => {
  it('each code’s scans, a step apart from the shipping time', () => {
    const statuses = Object.fromEntries(TEST_TRACKING_CODES.map((c) => [c, scriptOf(c, T0, DAY, null).map((s) => s.status)]));
    expect(statuses).toEqual({
      EZ1000000001: [],
      EZ2000000002: ['in_transit'],
      EZ3000000003: ['in_transit', 'out_for_delivery'],
      EZ4000000004: ['in_transit', 'out_for_delivery', 'delivered'],
      EZ5000000005: ['in_transit', 'returned'],
      EZ6000000006: ['in_transit', 'exception'],
      EZ7000000007: [],
      EZ8000000008: ['in_transit', 'out_for_delivery', 'delivered'],
      EZ9000000009: ['in_transit', 'exception', 'returned'],
    });
    expect(scriptOf('EZ4000000004', T0, DAY, null).map((s) => s.dueAt)).toEqual([T0 + DAY, T0 + 2 * DAY, T0 + 3 * DAY]);
    expect(scriptOf('EZ9000000009', T0, DAY, null)[1]!.description).toMatch(/address/i);
  });

  it('only a delivery that comes is estimated: EZ4 on its day, EZ8 two steps after the deadline', () => {
    expect(scriptOf('EZ4000000004', T0, DAY, T0 + 10 * DAY)[0]!.estimatedDeliveryAt).toBe(T0 + 3 * DAY);
    const deliverBy = T0 + 5 * DAY;
    const late = scriptOf('EZ8000000008', T0, DAY, deliverBy);
    expect(late.map((s) => s.dueAt)).toEqual([T0 + DAY, deliverBy + DAY, deliverBy + 2 * DAY]);
    expect(late[0]!.estimatedDeliveryAt).toBe(deliverBy + 2 * DAY);
    // A deadline already past, or none: counted from the first scan.
    expect(scriptOf('EZ8000000008', T0, DAY, T0 - DAY).map((s) => s.dueAt)).toEqual([T0 + DAY, T0 + 2 * DAY, T0 + 3 * DAY]);
    for (const code of ['EZ2000000002', 'EZ3000000003', 'EZ5000000005', 'EZ6000000006', 'EZ9000000009'] as const) {
      expect(scriptOf(code, T0, DAY, T0 + DAY).every((s) => s.estimatedDeliveryAt === null)).toBe(true);
    }
  });

  it('a code in any spelling is one; a live shipment refuses it naming them all', () => {
    expect(testCodeOf('ez4000000004')).toBe('EZ4000000004');
    expect(testCodeOf(' EZ 4000-000004 ')).toBe('EZ4000000004');
    expect(testCodeOf('EZ4000000005')).toBeUndefined();
    expect(testCodeOf('1Z999AA10123456784')).toBeUndefined();
    expect(() => refuseTestCodeOnLive('1Z999AA10123456784')).not.toThrow();
    expect(() => refuseTestCodeOnLive('EZ4000000004')).toThrow(/EZ1000000001, .*EZ9000000009/);
  });
});
