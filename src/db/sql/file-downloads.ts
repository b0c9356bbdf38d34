import type { SqlRunner } from '../database.ts';

/**
 * Records a party's download of an e-ticket (the evidence of delivery): who, as which party, when.
 * Called after the file was found and may be served; the role is the order's, as the read checked.
 */
export async function recordDownload(
  db: SqlRunner,
  d: { fileId: number; shipmentId: number; brokerageId: number; userId: number | null },
): Promise<void> {
  await db.rows(
    `insert into file_downloads (file_id, shipment_id, order_id, brokerage_id, user_id, role)
     select $1::bigint, s.id, s.order_id, $3::bigint, $4::bigint, case when f.brokerage_id = $3::bigint then 'seller' else 'buyer' end
     from shipments s join orders o on o.id = s.order_id join offices f on f.id = o.seller_office_id
     where s.id = $2::bigint`,
    [d.fileId, d.shipmentId, d.brokerageId, d.userId],
  );
}
