import { expect } from 'vitest';
import type { apiClient } from './api.ts';
import { SELLER } from './fixtures.ts';
import { b64, makePdf } from './test-files.ts';

/** An Eticket order (quantity 2) accepted, given two single-page e-tickets with seats and barcodes, and completed. */
export async function completedEticketOrder(
  call: ReturnType<typeof apiClient>,
  orderId: number,
): Promise<{ shipmentId: number; etickets: Array<{ id: number; url: string; seat: string; barcode: string }> }> {
  const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
  expect(accepted.status).toBe(200);
  const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
  expect(updated.status).toBe(200);
  const shipmentId = updated.body.id as number;
  const up = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/etickets`, {
    etickets: [
      { eticket: b64(await makePdf(1, `old 12 of ${orderId}`)), seat: '12', barcode: `OLD-12-${orderId}` },
      { eticket: b64(await makePdf(1, `old 13 of ${orderId}`)), seat: '13', barcode: `OLD-13-${orderId}` },
    ],
  });
  expect(up.status).toBe(200);
  const done = await call(SELLER, 'PUT', `/v9/shipments/${shipmentId}/complete`, {});
  expect(done.status).toBe(200);
  return { shipmentId, etickets: up.body.etickets };
}
