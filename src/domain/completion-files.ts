import { InvalidTransition, type CompleteCommand } from '@fulfil/contract';
import type { SqlTx } from '../db/database.ts';
import { currentEticketSet } from '../db/sql/file-sets.ts';
import { eticketJson } from './file-json.ts';

/**
 * What a completion's event says beyond its transition: an Eticket shipment is completed with
 * its e-tickets (422 naming what is missing when none were uploaded), and the event carries their
 * list and download paths, never their bytes; a barcode completion's tickets and the platform
 * given as transfer_source. Undefined when there is nothing to say (no read for other types).
 */
export async function completionDetails(
  tx: SqlTx,
  shipment: { id: number; type: string },
  given: Pick<CompleteCommand, 'tickets' | 'transfer_source'> = {},
): Promise<Record<string, unknown> | undefined> {
  const said: Record<string, unknown> = {
    ...(given.tickets ? { tickets: given.tickets } : {}),
    ...(given.transfer_source ? { transfer_source: given.transfer_source } : {}),
  };
  if (shipment.type !== 'Eticket') return Object.keys(said).length ? said : undefined;
  const set = await currentEticketSet(tx, shipment.id);
  if (!set || set.files.length === 0) {
    throw new InvalidTransition(
      `shipment ${shipment.id} has no e-tickets: upload them (POST /v9/shipments/${shipment.id}/etickets) before completing an Eticket shipment`,
    );
  }
  return { ...said, etickets: set.files.map((f) => eticketJson(shipment.id, f)) };
}
