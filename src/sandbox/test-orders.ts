import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { Forbidden, InvalidParams, InvalidTransition, parseOrThrow } from '@fulfil/contract';
import type { Caller } from '../auth/caller.ts';
import { query, type Executor, type SqlRunner } from '../db/client.ts';
import { DELIVERY_METHODS } from '../db/schema.ts';
import { deliverByFor, dueSoonAt, parseCalendarDate, type DeadlinePolicy } from '../domain/deadline-policy.ts';
import { SIMULATED_BROKERAGE_ID, SIMULATED_OFFICE_ID } from './sandbox-twin.ts';
import { clockOf } from './test-clocks.ts';

/** POST /v9/test_helpers/orders: which side the caller plays, and what the marketplace would send. */
export const testOrderBody = z.strictObject({
  role: z.enum(['seller', 'buyer']),
  delivery: z.enum(DELIVERY_METHODS).default('tbd'),
  quantity: z.number().int().min(1).max(100).default(2),
  in_hand_on: z.string().optional(),
  deliver_by: z.iso.datetime({ offset: true }).optional(),
  /** A test clock of the caller's sandbox: the order lives at its time (D-180). */
  test_clock: z.number().int().positive().optional(),
});

/**
 * A test order (D-149): the caller's sandbox brokerage is the party `role` names, the simulated
 * counterparty the other. Like the marketplace's orders it is reference data written as it is
 * (the fixture's orders are too), not a command of fulfil: from here on the real commands run on
 * it. Its deadline follows the same policy; the caller arms its timers once committed.
 */
export async function createTestOrder(
  database: { db: Executor } & SqlRunner,
  caller: Caller,
  body: unknown,
  policy: DeadlinePolicy,
): Promise<number> {
  const ex = database.db;
  // The body first, as on every route: a broken request is 400 whoever sends it.
  const input = parseOrThrow(testOrderBody, body);
  const inHandOn = input.in_hand_on === undefined ? null : parseCalendarDate(input.in_hand_on, 'in_hand_on');
  if (inHandOn && input.deliver_by) throw new InvalidParams('deliver_by: give in_hand_on or deliver_by, not both', 'deliver_by');
  if (caller.livemode) {
    throw new Forbidden('test helpers take a test credential (fulfil credentials create --test); live data is never made here');
  }
  // The order's clock, if it names one: the caller's own (another's is 404, as another's order is).
  const clock = input.test_clock === undefined ? null : await clockOf(database, caller, input.test_clock);
  const deliverBy = input.deliver_by ? new Date(input.deliver_by) : inHandOn ? deliverByFor(inHandOn, null, policy) : null;
  let sellerOffice = SIMULATED_OFFICE_ID;
  let buyer = SIMULATED_BROKERAGE_ID;
  if (input.role === 'seller') {
    const [office] = await query<{ id: string | number }>(
      ex,
      sql`select id from offices where brokerage_id = ${caller.brokerageId} order by id limit 1`,
    );
    if (!office) throw new InvalidTransition('your brokerage has no office to sell from: its live brokerage needs one first');
    sellerOffice = Number(office.id);
  } else buyer = caller.brokerageId;
  const [order] = await query<{ id: string | number }>(
    ex,
    sql`insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email,
          in_hand_on, deliver_by, due_soon_at, livemode, test_clock_id, created_at)
        select n, 'test-' || n, ${sellerOffice}, ${buyer}, ${input.delivery}, ${input.quantity}, 'Test Buyer', 'buyer@sandbox.invalid',
          ${inHandOn}::date, ${deliverBy?.toISOString() ?? null}::timestamptz, ${deliverBy ? dueSoonAt(deliverBy, policy).toISOString() : null}::timestamptz, false,
          ${clock?.id ?? null}::bigint, coalesce(${clock?.frozenTime.toISOString() ?? null}::timestamptz, now())
        from nextval('sandbox_ids') as n
        returning id`,
  );
  return Number(order!.id);
}
