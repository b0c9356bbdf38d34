import { OPEN_ORDER_STATES } from '../machines/index.ts';
import { InvalidParams, InvalidTransition, MAX_ACTIVE_HOLDS, parseOrThrow, placeHoldCommand } from '@fulfil/contract';
import { activeHoldsOf, holdByHandle, insertHold } from '../src/db/sql/holds.ts';
import { openHoldOrder } from '../src/domain/hold-access.ts';
import { holdEventJson, holdJson } from '../src/domain/hold-json.ts';
import { appendHoldEvent } from '../src/domain/hold-release.ts';
import { assertHoldSeats, assertMayHold } from '../src/domain/hold-rules.ts';
import { defineHandler } from './handler.ts';

/**
 * POST /v9/orders/:id/holds (the seller; an operator through the ops page or `fulfil holds
 * place`): the order waits. While the hold is active the order cannot be completed nor its files
 * uploaded, and its deadline timers wait (timersOf removes them); `release_at` arms its release.
 */
export default defineHandler({
  name: 'order.hold_place',
  parse: (payload) => parseOrThrow(placeHoldCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const order = await openHoldOrder(tx, payload.order_id, actor, { operator: payload.operator, commandId, operation: 'place a hold' });
    // The buyer places none, handle or not; the same handle answers the hold it named first, as it now reads (D-211).
    if (order.who === 'buyer') assertMayHold(order.who, payload.reason, 'place');
    if (payload.handle !== undefined) {
      const first = await holdByHandle(tx, order.id, payload.handle);
      if (first) return { status: 200, body: holdJson(first) };
    }
    assertMayHold(order.who, payload.reason, 'place');
    const releaseAt = payload.release_at === undefined ? null : new Date(payload.release_at);
    if (releaseAt && releaseAt.getTime() <= order.now.getTime()) {
      throw InvalidParams.at('release_at', `must be ahead of the order's time (${order.now.toISOString()})`);
    }
    const seats = payload.seats ?? [];
    await assertHoldSeats(tx, order.id, seats);
    if (!(OPEN_ORDER_STATES as readonly string[]).includes(order.state)) {
      throw new InvalidTransition(`order ${order.id} is ${order.state}: only an open order can be held`);
    }
    const active = await activeHoldsOf(tx, order.id);
    if (active.length >= MAX_ACTIVE_HOLDS) {
      throw new InvalidTransition(`order ${order.id} has ${active.length} active holds, the most it may have; release one first`);
    }
    const hold = await insertHold(tx, {
      orderId: order.id,
      reason: payload.reason,
      notes: payload.notes ?? null,
      handle: payload.handle ?? null,
      seats,
      by: order.by,
      placedAt: order.now,
      releaseAt,
      commandId,
    });
    await appendHoldEvent(tx, order, 'hold_placed', { hold: holdEventJson(hold) }, order.eventActor);
    return { status: 201, body: holdJson(hold), timersOf: order.id };
  },
});
