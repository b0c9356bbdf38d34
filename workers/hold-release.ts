import { parseOrThrow, releaseHoldCommand } from '@fulfil/contract';
import { openHold } from '../src/domain/hold-access.ts';
import { holdJson } from '../src/domain/hold-json.ts';
import { releaseHoldIn } from '../src/domain/hold-release.ts';
import { assertMayHold } from '../src/domain/hold-rules.ts';
import { defineHandler } from './handler.ts';

/**
 * POST /v9/holds/:id/release: whoever may place a hold of its reason releases it (the seller its
 * reasons, an operator any). The deadline moves by the time held where the reason gives it back
 * (hold-release.ts), and the order's timers are armed again (timersOf).
 */
export default defineHandler({
  name: 'hold.release',
  parse: (payload) => parseOrThrow(releaseHoldCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const { order, hold } = await openHold(tx, payload.hold_id, actor, {
      operator: payload.operator,
      commandId,
      operation: 'release a hold',
    });
    assertMayHold(order.who, hold.reason, 'release');
    const released = await releaseHoldIn(tx, hold, {
      at: order.now,
      by: order.by,
      why: 'released',
      notes: payload.notes ?? null,
      actor: order.eventActor,
    });
    return { status: 200, body: holdJson(released), timersOf: order.id };
  },
});
