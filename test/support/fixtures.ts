/**
 * The standard test world: brokerage 1 sells (offices 10, 11), brokerage 2 buys (office 20),
 * brokerage 3 is a stranger to every order. Credentials are fixed so tests can sign requests.
 */
export const SELLER = { token: 'SellerApiToken000000000000000001', secret: 'seller-api-secret-0000000000000000000001' };
export const SELLER_USER = { token: 'SellerUserToken00000000000000001', secret: 'seller-user-secret-000000000000000000001' };
export const BUYER = { token: 'BuyerApiToken0000000000000000002', secret: 'buyer-api-secret-00000000000000000000002' };
export const STRANGER = { token: 'StrangerApiToken0000000000000003', secret: 'stranger-api-secret-00000000000000000003' };

/** The buyer's address of the mailed-ticket tests: a valid US address, no PO box. */
export const BUYER_ADDRESS = {
  name: 'Bo Buyer',
  street_address: '1 Main St',
  extended_address: 'Apt 4',
  locality: 'Chicago',
  region: 'IL',
  postal_code: '60601',
  country_code: 'US',
};

export const ORDERS = { tbd: 700, tbd2: 701, flash: 702, localPickup: 703, tbd3: 704 } as const;

/** The standard world; `extraTbdOrders` adds TBD orders like 700 under those ids, for tests that need many. */
export function baseFixture(extraTbdOrders: Iterable<number> = []) {
  const order = (id: number, delivery: 'tbd' | 'flash' | 'local_pickup') => ({
    id,
    oid: `1001-${id}`,
    seller_office_id: 10,
    buyer_brokerage_id: 2,
    delivery,
    quantity: 2,
    recipient: { name: 'Bo Buyer', email: 'bo@example.test' },
  });
  return {
    brokerages: [
      {
        id: 1,
        name: 'Acme Tickets',
        offices: [
          { id: 10, name: 'Acme NYC' },
          { id: 11, name: 'Acme LA' },
        ],
        users: [{ id: 100, name: 'Ann Reviewer', email: 'ann@acme.test' }],
        credentials: [
          { kind: 'api' as const, ...SELLER },
          { kind: 'user' as const, user_id: 100, ...SELLER_USER },
        ],
      },
      {
        id: 2,
        name: 'Bolt Buyers',
        offices: [{ id: 20, name: 'Bolt Chicago' }],
        users: [{ id: 200, name: 'Bo Buyer', email: 'bo@bolt.test' }],
        credentials: [{ kind: 'api' as const, ...BUYER }],
      },
      {
        id: 3,
        name: 'Other Brokerage',
        offices: [{ id: 30, name: 'Other Office' }],
        users: [{ id: 300, name: 'Oz Other', email: 'oz@other.test' }],
        credentials: [{ kind: 'api' as const, ...STRANGER }],
      },
    ],
    events: [{ id: 5000, name: 'Concert', occurs_at: '2027-01-01T20:00:00Z' }],
    orders: [
      order(ORDERS.tbd, 'tbd'),
      order(ORDERS.tbd2, 'tbd'),
      order(ORDERS.flash, 'flash'),
      order(ORDERS.localPickup, 'local_pickup'),
      order(ORDERS.tbd3, 'tbd'),
      ...[...extraTbdOrders].map((id) => order(id, 'tbd')),
    ],
    ticket_groups: [] as unknown[],
  };
}
