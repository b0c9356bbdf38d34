import { z } from 'zod';
import { Forbidden, InvalidParams, NotFound, parseOrThrow } from '@fulfil/contract';
import type { Caller } from '../auth/caller.ts';
import { readOrder } from '../read/read-order.ts';
import { SIMULATED_BROKERAGE_ID } from './sandbox-twin.ts';
import { actAsBuyer, SIMULATED_BUYER_ACTIONS, type SimulatedBuyerAction } from './simulated-buyer.ts';
import { orderAsSeen, SimulatedSteps, type SimulatedPartyDeps } from './simulated-commands.ts';
import { actAsSeller, SIMULATED_SELLER_ACTIONS, type SimulatedSellerAction } from './simulated-seller.ts';

export { SIMULATED_BUYER_ACTIONS, SIMULATED_SELLER_ACTIONS };
export type { SimulatedPartyDeps };

/**
 * POST /v9/test_helpers/orders/:id/actions: `action`, and beside it the fields that action's
 * command takes (its `reason`, `notes`…), checked by that command's own schema.
 */
export const simulatedActionBody = z.looseObject({
  action: z
    .string()
    .min(1)
    .describe(
      `what the simulated party does; as the buyer: ${SIMULATED_BUYER_ACTIONS.join(', ')}; as the seller: ${SIMULATED_SELLER_ACTIONS.join(', ')}`,
    ),
});

/** The answer: the status, and the body (the action's steps, or the refusal a real party gets). */
export interface SimulatedAnswer {
  status: number;
  body: unknown;
}

/** Which party the simulated counterparty is on the caller's test order; not the caller's: 404. */
async function simulatedSideOf(
  deps: SimulatedPartyDeps,
  caller: Pick<Caller, 'brokerageId'>,
  orderId: number,
): Promise<'buyer' | 'seller'> {
  const [row] = await deps.database.rows<{ seller: string | number; buyer: string | number; livemode: boolean }>(
    `select f.brokerage_id as seller, o.buyer_brokerage_id as buyer, o.livemode
     from orders o join offices f on f.id = o.seller_office_id where o.id = $1::bigint`,
    [orderId],
  );
  const [seller, buyer] = row ? [Number(row.seller), Number(row.buyer)] : [0, 0];
  if (row && !row.livemode && seller === caller.brokerageId && buyer === SIMULATED_BROKERAGE_ID) return 'buyer';
  if (row && !row.livemode && buyer === caller.brokerageId && seller === SIMULATED_BROKERAGE_ID) return 'seller';
  // Another brokerage's order, a live one, or one whose other party is real: as for any order not yours.
  throw new NotFound(`order ${orderId} not found`);
}

/**
 * The simulated counterparty of a test order acts (D-190..D-192): each action is the real
 * command (or read) a party would send, dispatched as the simulated brokerage, so the order
 * moves, and its events, feed entries and webhooks are written, exactly as for a real party.
 * An action stops at the first command that does not succeed, and its refusal is the answer.
 */
export async function actAsSimulatedParty(
  deps: SimulatedPartyDeps,
  caller: Pick<Caller, 'brokerageId' | 'livemode'>,
  orderId: number,
  body: unknown,
): Promise<SimulatedAnswer> {
  const { action, ...fields } = parseOrThrow(simulatedActionBody, body ?? {});
  if (caller.livemode) {
    throw new Forbidden('test helpers take a test credential (fulfil credentials create --test); live orders have no simulated party');
  }
  const side = await simulatedSideOf(deps, caller, orderId);
  const allowed: readonly string[] = side === 'buyer' ? SIMULATED_BUYER_ACTIONS : SIMULATED_SELLER_ACTIONS;
  if (!allowed.includes(action)) {
    throw InvalidParams.at(
      'action',
      `the simulated ${side} of order ${orderId} takes one of ${allowed.join(', ')}; got ${JSON.stringify(action)}`,
    );
  }
  const order = await orderAsSeen(deps, orderId);
  const steps = new SimulatedSteps(deps);
  if (side === 'buyer') await actAsBuyer(deps, steps, order, action as SimulatedBuyerAction, fields);
  else await actAsSeller(deps, steps, order, action as SimulatedSellerAction, fields);
  const last = steps.done.at(-1)!;
  // A refusal is answered as the real party gets it: its status and body, nothing beside.
  if (last.status >= 400) return { status: last.status, body: last.body };
  return {
    status: last.status === 202 ? 202 : 200,
    body: { action, simulated_party: side, order: await readOrder(deps.database.db, orderId, caller), steps: steps.done },
  };
}
