import { IdempotencyConflict, InvalidParams, requestFingerprint, Unauthorized, type CarrierUpdateCommand } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import { CarrierSignatureInvalid, CarrierWebhookMalformed, type CarrierAdapter } from '../carriers/carrier-adapter.ts';
import { takeCarrierEvent } from '../db/sql/mailed-shipment.ts';
import { matchCarrierEvent } from './tracking-claims.ts';
import type { Dispatch } from '../queues/dispatcher.ts';

export interface CarrierWebhookDeps {
  database: SqlRunner;
  dispatcher: Dispatch;
  carrier: CarrierAdapter;
}

export type CarrierWebhookOutcome =
  | { kind: 'recorded'; shipmentId: number; commandId: string; status: number; body: unknown }
  | { kind: 'accepted'; shipmentId: number; commandId: string }
  | { kind: 'ignored'; reason: string };

/**
 * A carrier's webhook call: verified (a bad or missing signature is 401 and changes nothing),
 * matched to the envelope's claim by the account's tracker id, then by the number as its carrier
 * reads it (tracking-claims.ts), and handed to that shipment's
 * command (`shipment.carrier_update`), whose command id derives from the carrier's event id: a
 * retried event is the same command and replays its answer. An event about an unknown tracking
 * code is kept as taken, without effect (the carrier is answered 200, so it stops retrying).
 */
export async function takeCarrierWebhook(
  deps: CarrierWebhookDeps,
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
): Promise<CarrierWebhookOutcome> {
  let event;
  try {
    event = deps.carrier.readWebhook(rawBody, headers);
  } catch (err) {
    if (err instanceof CarrierSignatureInvalid) throw new Unauthorized(err.message);
    if (err instanceof CarrierWebhookMalformed) throw new InvalidParams(err.message, 'body');
    throw err;
  }
  if (!event) return { kind: 'ignored', reason: 'not a tracker event' };
  const match = await matchCarrierEvent(deps.database, event);
  if (!match || match.liveId === null) {
    // Kept with its scans for the operators; never applied to a guess (D-151).
    await takeCarrierEvent(deps.database, {
      provider: deps.carrier.provider,
      eventId: event.eventId,
      trackingCode: event.trackingCode,
      outcome: 'unknown_tracking_code',
      scans: event.scans.slice(0, 500),
    });
    return { kind: 'ignored', reason: `no mailed shipment has tracking number ${event.trackingCode}` };
  }
  const row = { id: match.liveId, sellerBrokerageId: match.sellerBrokerageId };
  const payload: CarrierUpdateCommand = {
    shipment_id: Number(row.id),
    provider: deps.carrier.provider,
    event_id: event.eventId,
    tracking_code: event.trackingCode,
    tracker_id: event.trackerId,
    estimated_delivery_at: event.estimatedDeliveryAt,
    scans: event.scans.slice(0, 500),
  };
  let outcome;
  try {
    outcome = await deps.dispatcher.dispatch({
      name: 'shipment.carrier_update',
      actor: { brokerageId: Number(row.sellerBrokerageId), userId: null, via: 'upstream' },
      payload,
      requestHash: requestFingerprint('shipment.carrier_update', payload),
      idempotencyKey: `${deps.carrier.provider}:${event.eventId}`,
    });
  } catch (err) {
    // The same event id with another body: the event was taken once already; this copy changes nothing.
    if (err instanceof IdempotencyConflict) return { kind: 'ignored', reason: `event ${event.eventId} was already taken` };
    throw err;
  }
  if (outcome.kind === 'accepted') return { kind: 'accepted', shipmentId: payload.shipment_id, commandId: outcome.commandId };
  return {
    kind: 'recorded',
    shipmentId: payload.shipment_id,
    commandId: outcome.commandId,
    status: outcome.result.status,
    body: outcome.result.body,
  };
}
