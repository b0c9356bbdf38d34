import { InvalidTransition } from '@fulfil/contract';
import type { SqlTx } from '../db/database.ts';
import { currentEticketSet } from '../db/sql/file-sets.ts';
import { eticketJson } from './file-json.ts';

/**
 * What a completion's event says of the shipment's files: an Eticket shipment is completed with
 * its e-tickets (422 naming what is missing when none were uploaded), and its event carries their
 * list and download paths, never their bytes. Other types read nothing.
 */
export async function completionDetails(tx: SqlTx, shipment: { id: number; type: string }): Promise<Record<string, unknown> | undefined> {
  if (shipment.type !== 'Eticket') return undefined;
  const set = await currentEticketSet(tx, shipment.id);
  if (!set || set.files.length === 0) {
    throw new InvalidTransition(
      `shipment ${shipment.id} has no e-tickets: upload them (POST /v9/shipments/${shipment.id}/etickets) before completing an Eticket shipment`,
    );
  }
  return { etickets: set.files.map((f) => eticketJson(shipment.id, f)) };
}
