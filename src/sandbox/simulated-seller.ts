import { z } from 'zod';
import {
  acceptBody,
  completeBody,
  mobileTransferBody,
  parseOrThrow,
  rejectBody,
  reissueBody,
  reissueFields,
  respondIssueBody,
  updateCommandFromBody,
} from '@fulfil/contract';
import { prepareEtickets } from '../domain/file-upload.ts';
import { sampleEtickets } from './sample-etickets.ts';
import { SIMULATED_BROKERAGE_ID } from './sandbox-twin.ts';
import {
  latestIssueOf,
  shipmentOf,
  simulatedReviewer,
  type OrderAsSeen,
  type SimulatedPartyDeps,
  type SimulatedSteps,
} from './simulated-commands.ts';

/** What the simulated seller does when the caller buys (docs/API.md §Test mode). */
export const SIMULATED_SELLER_ACTIONS = ['accept', 'reject', 'ship', 'respond_issue', 'reissue'] as const;
export type SimulatedSellerAction = (typeof SIMULATED_SELLER_ACTIONS)[number];

type Fields = Record<string, unknown>;

/** Where a mobile transfer "went": a link that names the order and leads nowhere. */
const transferLink = (orderId: number, what: string) => `https://transfer.sandbox.invalid/orders/${orderId}/${what}`;

/** The seller's local pickup details the simulated seller gives. */
const PICKUP = {
  ship_from_name: 'Simulated Seller',
  ship_from_phone_number_attributes: { country_code: '+1', number: '2125550100' },
  ship_from_address_attributes: {
    name: 'Sandbox Box Office',
    street_address: '1 Sandbox Way',
    locality: 'New York',
    region: 'NY',
    postal_code: '10001',
    country_code: 'US',
  },
  pickup_time_range: 'one hour before the event',
  pickup_instructions: 'A sandbox pickup: nobody will be there.',
};

const shipFields = z.strictObject({ mobile_transfer_type: mobileTransferBody.shape.mobile_transfer_type.optional() });
const reissueGiven = z.strictObject({
  notes: reissueFields.notes,
  tickets: reissueFields.tickets,
  transfer_source: reissueFields.transfer_source,
  x_mobile_link: reissueFields.x_mobile_link,
});

/**
 * `ship` (D-191): a TBD shipment becomes e-tickets (or the `mobile_transfer_type` asked for);
 * e-tickets get generated PDFs, uploaded as a seller uploads them; then the shipment is
 * completed, with a link for XMobileLink. A local pickup gets the seller's pickup details: the
 * buyer's own details then complete it, as in live mode.
 */
async function ship(deps: SimulatedPartyDeps, steps: SimulatedSteps, order: OrderAsSeen, fields: Fields): Promise<void> {
  const { mobile_transfer_type: asked } = parseOrThrow(shipFields, fields);
  let { id, type, state } = shipmentOf(order);
  if ((type === 'TBD' && state === 'pending') || asked) {
    const updated = await steps.run('shipment.update', updateCommandFromBody(id, { mobile_transfer_type: asked ?? 'Eticket' }));
    if (!updated) return;
    [id, type, state] = [Number(updated.id), String(updated.type), String(updated.state)];
  }
  if (type === 'LocalPickup') {
    await steps.run('shipment.update', updateCommandFromBody(id, PICKUP));
    return;
  }
  if (type === 'Eticket' && state === 'pending') {
    const upload = await prepareEtickets(deps, id, SIMULATED_BROKERAGE_ID, { etickets: await sampleEtickets(order.id, order.quantity) });
    if (!(await steps.run('shipment.etickets', upload))) return;
  }
  const link = type === 'XMobileLink' ? { x_mobile_link: transferLink(order.id, 'transfer') } : {};
  await steps.run('shipment.complete', { ...parseOrThrow(completeBody, link), shipment_id: id });
}

/** `reissue`: delivers again what the shipment's type takes, new files, a new link or the platform; the real command decides. */
async function reissue(deps: SimulatedPartyDeps, steps: SimulatedSteps, order: OrderAsSeen, fields: Fields): Promise<void> {
  const given = parseOrThrow(reissueGiven, fields);
  const { id, type } = shipmentOf(order);
  const round = Date.now();
  // What the caller names is delivered as named; otherwise what the shipment's type takes.
  const named = given.tickets !== undefined || given.transfer_source !== undefined || given.x_mobile_link !== undefined;
  const generated = named
    ? {}
    : type === 'Eticket'
      ? { etickets: await sampleEtickets(order.id, order.quantity, round) }
      : type === 'XMobile' || type === 'XMobileLink'
        ? { x_mobile_link: transferLink(order.id, `reissue-${round}`) }
        : { transfer_source: 'OTHER' };
  const { etickets, ...rest } = parseOrThrow(reissueBody, { notes: 'The simulated seller delivered again.', ...generated, ...fields });
  const files = etickets ? (await prepareEtickets(deps, id, SIMULATED_BROKERAGE_ID, { etickets }, { reissue: true })).etickets : undefined;
  await steps.run('shipment.reissue', { ...rest, shipment_id: id, ...(files ? { etickets: files } : {}) });
}

export async function actAsSeller(
  deps: SimulatedPartyDeps,
  steps: SimulatedSteps,
  order: OrderAsSeen,
  action: SimulatedSellerAction,
  fields: Fields,
): Promise<void> {
  switch (action) {
    case 'accept': {
      const body = parseOrThrow(acceptBody, { ...fields, reviewer_id: await simulatedReviewer(deps) });
      await steps.run('order.accept', { ...body, order_id: order.id });
      return;
    }
    case 'reject': {
      const body = parseOrThrow(rejectBody, { reason: 'Test Order', ...fields, reviewer_id: await simulatedReviewer(deps) });
      await steps.run('order.reject', { ...body, order_id: order.id });
      return;
    }
    case 'ship':
      return ship(deps, steps, order, fields);
    case 'respond_issue': {
      const body = parseOrThrow(respondIssueBody, { notes: 'The simulated seller delivered: see the delivery evidence.', ...fields });
      await steps.run('delivery_issue.respond', { ...body, issue_id: await latestIssueOf(deps, order) });
      return;
    }
    case 'reissue':
      return reissue(deps, steps, order, fields);
  }
}
