import type { Sql, TransactionSql } from 'postgres';
import { baseFixture, BUYER, SELLER, STRANGER } from './fixtures.ts';

/**
 * A feed world of four brokerages whose orders link them in a ring (1 sells to 2, 2 to 3, 3 to
 * 4, 4 to 1), so every feed holds events the next one's does not, and other brokerages' events
 * fall between any two of one's own.
 */
export const FOURTH = { token: 'FourthApiToken000000000000000004', secret: 'fourth-api-secret-0000000000000000000004' };

export const BROKERAGE_CREDENTIALS = { 1: SELLER, 2: BUYER, 3: STRANGER, 4: FOURTH } as const;
export type BrokerageId = keyof typeof BROKERAGE_CREDENTIALS;

/** Orders of each ring link: [seller brokerage, buyer brokerage, order ids]. */
export const RING_ORDERS: Array<{ seller: BrokerageId; buyer: BrokerageId; orders: number[] }> = [
  { seller: 1, buyer: 2, orders: [900, 901, 902] },
  { seller: 2, buyer: 3, orders: [910, 911, 912] },
  { seller: 3, buyer: 4, orders: [920, 921, 922] },
  { seller: 4, buyer: 1, orders: [930, 931, 932] },
];

export function ringFixture() {
  const fixture = baseFixture();
  fixture.brokerages.push({
    id: 4,
    name: 'Fourth Brokerage',
    offices: [{ id: 40, name: 'Fourth Office' }],
    users: [{ id: 400, name: 'Fay Fourth', email: 'fay@fourth.test' }],
    credentials: [{ kind: 'api' as const, ...FOURTH }],
  });
  for (const { seller, buyer, orders } of RING_ORDERS)
    for (const id of orders)
      fixture.orders.push({
        id,
        oid: `2002-${id}`,
        seller_office_id: seller * 10,
        buyer_brokerage_id: buyer,
        delivery: 'tbd',
        quantity: 1,
        recipient: { name: 'Ring Buyer', email: 'ring@example.test' },
      });
  return fixture;
}

export const partiesOf = (orderId: number): BrokerageId[] => {
  const link = RING_ORDERS.find((l) => l.orders.includes(orderId));
  if (!link) throw new Error(`order ${orderId} is not in the ring`);
  return [link.seller, link.buyer];
};

/**
 * Writes one event as a command would leave it (the event row and its feed row waiting for a
 * position), on `sql`, which may be inside a transaction; the relay then places it in its
 * parties' feeds.
 */
export async function appendEvent(sql: Sql | TransactionSql, orderId: number, seq: number, eventId: string): Promise<void> {
  const [seller, buyer] = partiesOf(orderId);
  await sql`with e as (insert into shipment_events (event_id, order_id, seq, kind, to_type, to_state, actor_brokerage_id, actor_role, command_id)
                       values (${eventId}, ${orderId}, ${seq}, 'created', 'TBD', 'pending', ${seller!}, 'seller', ${`c-${eventId}`}) returning id)
            insert into event_feed (event_row_id, seller_brokerage_id, buyer_brokerage_id) select id, ${seller!}, ${buyer!} from e`;
}
