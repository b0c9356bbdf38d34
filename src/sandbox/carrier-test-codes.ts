import { InvalidParams, type TrackingStatus } from '@fulfil/contract';

/**
 * EasyPost's test tracking codes, and two of the simulator's own (EZ8…, EZ9…): on a test shipment
 * each is carried by the carrier simulator (carrier-simulator.ts) along the script below; on a
 * live one each is refused. docs/API.md (Test mode) tells them to integrators.
 */
export const TEST_TRACKING_CODES = [
  'EZ1000000001',
  'EZ2000000002',
  'EZ3000000003',
  'EZ4000000004',
  'EZ5000000005',
  'EZ6000000006',
  'EZ7000000007',
  'EZ8000000008',
  'EZ9000000009',
] as const;
export type TestTrackingCode = (typeof TEST_TRACKING_CODES)[number];

/** The code as written by the seller (any case, spaces or dashes), or undefined when it is no test code. */
export function testCodeOf(number: string): TestTrackingCode | undefined {
  const key = number.toUpperCase().replace(/[^0-9A-Z]/g, '');
  return (TEST_TRACKING_CODES as readonly string[]).includes(key) ? (key as TestTrackingCode) : undefined;
}

/** A live shipment takes no test code: 400 naming them all. */
export function refuseTestCodeOnLive(number: string, field = 'tracking_number'): void {
  if (!testCodeOf(number)) return;
  throw new InvalidParams(
    `${field}: ${number} is one of EasyPost's test tracking codes (${TEST_TRACKING_CODES.join(', ')}), which only a test order's ` +
      "shipment takes (test mode's carrier simulator); give the envelope's real tracking number",
    field,
  );
}

export interface PlannedScan {
  status: TrackingStatus;
  dueAt: number;
  description: string;
  location: string | null;
  /** The carrier's estimate this scan carries (as EasyPost's est_delivery_date); null: none. */
  estimatedDeliveryAt: number | null;
}

const HUB = 'SIMULATED HUB, KS';
const DEPOT = 'SIMULATED DEPOT, NY';

/**
 * The scans a test code brings, from the shipping time `from`, one `step` apart (a day on a test
 * clock, SANDBOX_CARRIER_STEP on the wall clock). EZ1 (pre_transit) and EZ7 (unknown) bring none:
 * EasyPost tells neither as a scan of an envelope on its way, so the shipment stays as shipped.
 * Only a delivery that comes carries an estimate, its own day: EZ4's is on time, EZ8's is late.
 */
export function scriptOf(code: TestTrackingCode, from: number, step: number, deliverBy: number | null): PlannedScan[] {
  const at = (n: number) => from + n * step;
  const scan = (
    status: TrackingStatus,
    dueAt: number,
    description: string,
    location: string | null = HUB,
    estimate: number | null = null,
  ) => ({
    status,
    dueAt,
    description,
    location,
    estimatedDeliveryAt: estimate,
  });
  switch (code) {
    case 'EZ1000000001':
    case 'EZ7000000007':
      return [];
    case 'EZ2000000002':
      return [scan('in_transit', at(1), 'In transit (simulated)')];
    case 'EZ3000000003':
      return [scan('in_transit', at(1), 'In transit (simulated)'), scan('out_for_delivery', at(2), 'Out for delivery (simulated)', DEPOT)];
    case 'EZ4000000004':
      return [
        scan('in_transit', at(1), 'In transit (simulated)', HUB, at(3)),
        scan('out_for_delivery', at(2), 'Out for delivery (simulated)', DEPOT),
        scan('delivered', at(3), 'Delivered (simulated)', DEPOT),
      ];
    case 'EZ5000000005':
      return [scan('in_transit', at(1), 'In transit (simulated)'), scan('returned', at(2), 'Returned to sender (simulated)')];
    case 'EZ6000000006':
      return [scan('in_transit', at(1), 'In transit (simulated)'), scan('exception', at(2), 'Delivery failure (simulated)')];
    case 'EZ8000000008': {
      // In transit until two steps after the deadline (or after its first scan, when the deadline
      // is already past or absent), then delivered: late, and said so by the estimate from the start.
      const late = Math.max(deliverBy ?? at(1), at(1));
      const delivered = late + 2 * step;
      return [
        scan('in_transit', at(1), 'In transit (simulated), delayed', HUB, delivered),
        scan('out_for_delivery', late + step, 'Out for delivery (simulated)', DEPOT),
        scan('delivered', delivered, 'Delivered late (simulated)', DEPOT),
      ];
    }
    case 'EZ9000000009':
      return [
        scan('in_transit', at(1), 'In transit (simulated)'),
        scan('exception', at(2), 'Address exception (simulated): the address is incomplete or cannot be found', DEPOT),
        scan('returned', at(3), 'Returned to sender (simulated): undeliverable address', DEPOT),
      ];
  }
}
