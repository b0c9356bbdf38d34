import { answerHoldCommand, InvalidTransition, parseOrThrow } from '@fulfil/contract';
import { markAnswered } from '../src/db/sql/holds.ts';
import { openHold } from '../src/domain/hold-access.ts';
import { holdEventJson, holdJson } from '../src/domain/hold-json.ts';
import { appendHoldEvent } from '../src/domain/hold-release.ts';
import { defineHandler } from './handler.ts';

/**
 * POST /v9/holds/:id/answer: the buyer gives what an awaiting_buyer_info hold asks for. The hold
 * stays active until the seller releases it (D-214); `order.hold_answered` tells both parties.
 */
export default defineHandler({
  name: 'hold.answer',
  parse: (payload) => parseOrThrow(answerHoldCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const { order, hold } = await openHold(tx, payload.hold_id, actor, { commandId, operation: 'answer a hold', only: 'buyer' });
    if (hold.reason !== 'awaiting_buyer_info')
      throw new InvalidTransition(`hold ${hold.id} is ${hold.reason}: only awaiting_buyer_info holds are answered`);
    if (hold.releasedAt) throw new InvalidTransition(`hold ${hold.id} was released at ${hold.releasedAt.toISOString()}`);
    if (hold.answeredAt) throw new InvalidTransition(`hold ${hold.id} was answered at ${hold.answeredAt.toISOString()}`);
    const answered = await markAnswered(tx, hold.id, payload.notes, order.now);
    await appendHoldEvent(tx, order, 'hold_answered', { hold: holdEventJson(answered) }, order.eventActor);
    return { status: 200, body: holdJson(answered) };
  },
});
