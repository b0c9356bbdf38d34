import { z } from 'zod';
import {
  cancelBody,
  InvalidTransition,
  issueStepBody,
  openIssueBody,
  parseOrThrow,
  positiveId,
  updateCommandFromBody,
} from '@fulfil/contract';
import { recordDownload } from '../db/sql/file-downloads.ts';
import { listEtickets, readShipmentFile } from '../read/shipment-files.ts';
import { SIMULATED_BROKERAGE_ID } from './sandbox-twin.ts';
import {
  latestIssueOf,
  shipmentOf,
  SIMULATED_ACTOR,
  type OrderAsSeen,
  type SimulatedPartyDeps,
  type SimulatedSteps,
} from './simulated-commands.ts';

/** What the simulated buyer does when the caller sells (docs/API.md §Test mode). */
export const SIMULATED_BUYER_ACTIONS = [
  'download_etickets',
  'accept_transfer',
  'report_issue',
  'resolve_issue',
  'escalate_issue',
  'propose_cancel',
  'accept_cancel',
  'update_pickup',
] as const;
export type SimulatedBuyerAction = (typeof SIMULATED_BUYER_ACTIONS)[number];

type Fields = Record<string, unknown>;

const downloadFields = z.strictObject({ eticket_id: positiveId.optional().describe('one e-ticket; all current ones without it') });
const noFields = z.strictObject({});

/** The buyer's local pickup details the simulated buyer gives, unless the action names its own. */
const PICKUP = { ship_to_name: 'Test Buyer', phone_number_attributes: { country_code: '+1', number: '3125550199' } };

/**
 * `download_etickets`: what a buyer's GET of each current e-ticket does, read through the same
 * party check and recorded as the same download (the evidence of delivery lists it).
 */
async function downloadEtickets(deps: SimulatedPartyDeps, steps: SimulatedSteps, order: OrderAsSeen, fields: Fields): Promise<void> {
  const { eticket_id: only } = parseOrThrow(downloadFields, fields);
  const { id, type, state } = shipmentOf(order);
  const { etickets } = await listEtickets(deps.database, id, SIMULATED_BROKERAGE_ID);
  if (etickets.length === 0)
    throw new InvalidTransition(`order ${order.id}'s shipment is ${type} ${state} and has no e-tickets to download`);
  for (const eticketId of only === undefined ? etickets.map((e) => e.id) : [only]) {
    const { file } = await readShipmentFile(deps, id, SIMULATED_BROKERAGE_ID, 'etickets', eticketId);
    await recordDownload(deps.database, {
      fileId: eticketId,
      shipmentId: id,
      brokerageId: SIMULATED_BROKERAGE_ID,
      userId: SIMULATED_ACTOR.userId,
    });
    steps.record({ command: 'eticket.download', status: 200, body: { eticket_id: eticketId, sha256: file.sha256 } });
  }
}

export async function actAsBuyer(
  deps: SimulatedPartyDeps,
  steps: SimulatedSteps,
  order: OrderAsSeen,
  action: SimulatedBuyerAction,
  fields: Fields,
): Promise<void> {
  switch (action) {
    case 'download_etickets':
      return downloadEtickets(deps, steps, order, fields);
    case 'accept_transfer':
      // The buyer's one acknowledgement of a delivery in fulfil (D-191): it completes a shipped
      // mailed order; a transfer the seller completed needs none, and is refused as it is for a buyer.
      parseOrThrow(noFields, fields);
      await steps.run('order.confirm_receipt', { order_id: order.id });
      return;
    case 'report_issue':
      await steps.run('delivery_issue.open', { ...parseOrThrow(openIssueBody, fields), order_id: order.id });
      return;
    case 'resolve_issue':
      await steps.run('delivery_issue.resolve', { ...parseOrThrow(issueStepBody, fields), issue_id: await latestIssueOf(deps, order) });
      return;
    case 'escalate_issue':
      await steps.run('delivery_issue.escalate', { ...parseOrThrow(issueStepBody, fields), issue_id: await latestIssueOf(deps, order) });
      return;
    case 'propose_cancel': {
      const body = parseOrThrow(cancelBody, fields);
      // The same command confirms the other party's proposal: a proposal is not a confirmation.
      if (order.state === 'cancel_proposed' && order.cancelProposedBy === 'seller') {
        throw new InvalidTransition(`order ${order.id} is cancel_proposed by the seller: accept_cancel confirms it`);
      }
      await steps.run('order.cancel', { ...body, order_id: order.id });
      return;
    }
    case 'accept_cancel': {
      const body = parseOrThrow(cancelBody, fields);
      // ... and on an accepted order it would propose one: there is nothing to accept.
      if (order.state === 'accepted') {
        throw new InvalidTransition(`order ${order.id} is accepted and no cancellation is proposed: the seller proposes one first`);
      }
      await steps.run('order.cancel', { ...body, order_id: order.id });
      return;
    }
    case 'update_pickup':
      await steps.run('shipment.update', updateCommandFromBody(shipmentOf(order).id, { ...PICKUP, ...fields }));
      return;
  }
}
