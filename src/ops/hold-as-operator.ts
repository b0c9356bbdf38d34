import { requestFingerprint, type CommandResult, type JobName, type PlaceHoldCommand, type ReleaseHoldCommand } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import type { Dispatch } from '../queues/dispatcher.ts';

type Sent = { commandId: string; result: CommandResult | undefined };

/**
 * An operator's hold command (the ops page, `fulfil holds place|release`): the job every hold
 * command is, sent as an upstream actor naming the operator, kept under the seller's brokerage
 * (every command row belongs to one); its events' actor is the service (D-217). Undefined: no
 * such order (place) or hold (release).
 */
async function dispatchAsOperator<N extends 'order.hold_place' | 'hold.release'>(
  deps: { database: SqlRunner; dispatcher: Dispatch },
  name: N,
  orderSql: string,
  id: number,
  payload: N extends 'order.hold_place' ? PlaceHoldCommand : ReleaseHoldCommand,
): Promise<Sent | undefined> {
  const [owner] = await deps.database.rows<{ brokerageId: string }>(orderSql, [id]);
  if (!owner) return undefined;
  const outcome = await deps.dispatcher.dispatch({
    name: name as JobName,
    actor: { brokerageId: Number(owner.brokerageId), userId: null, via: 'upstream' },
    payload,
    requestHash: requestFingerprint(name, payload),
  } as Parameters<Dispatch['dispatch']>[0]);
  return { commandId: outcome.commandId, result: outcome.kind === 'done' ? outcome.result : undefined };
}

const SELLER_OF_ORDER = `select f.brokerage_id as "brokerageId" from orders o join offices f on f.id = o.seller_office_id where o.id = $1::bigint`;
const SELLER_OF_HOLD = `select f.brokerage_id as "brokerageId" from holds h join orders o on o.id = h.order_id
  join offices f on f.id = o.seller_office_id where h.id = $1::bigint`;

export function placeHoldAsOperator(deps: { database: SqlRunner; dispatcher: Dispatch }, payload: PlaceHoldCommand) {
  return dispatchAsOperator(deps, 'order.hold_place', SELLER_OF_ORDER, payload.order_id, payload);
}

export function releaseHoldAsOperator(deps: { database: SqlRunner; dispatcher: Dispatch }, payload: ReleaseHoldCommand) {
  return dispatchAsOperator(deps, 'hold.release', SELLER_OF_HOLD, payload.hold_id, payload);
}
