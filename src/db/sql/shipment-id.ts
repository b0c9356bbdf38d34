import { ROUTING_RESIDUES } from '@fulfil/contract';

/**
 * The id a new shipment of order `orderId` (an SQL expression) gets: the sequence's next value
 * times ROUTING_RESIDUES plus the order id's residue, so the shipment id alone tells a producer
 * its order's command shard (queues/shard-of.ts) without a read.
 */
export function nextShipmentIdSql(orderId: string): string {
  return `(nextval('shipments_id_seq') * ${ROUTING_RESIDUES} + ${orderId} % ${ROUTING_RESIDUES})`;
}
