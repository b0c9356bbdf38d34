import { expect } from 'vitest';
import type { apiClient } from './api.ts';
import { BUYER, SELLER } from './fixtures.ts';
import type { SigningCredential } from './http.ts';
import { signedWith, startReceiver, type Behaviour } from './webhook-receiver.ts';

export interface PartyEndpoint {
  party: 'seller' | 'buyer';
  credential: SigningCredential;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  endpoint: { id: number; secret: string };
}

/**
 * A real receiver behind a webhook endpoint of each party brokerage of the fixture's orders
 * (the seller's, brokerage 1, and the buyer's, brokerage 2), for every event kind. close()
 * deletes the endpoints, so later flows owe them nothing, and stops the receivers.
 */
export async function startPartyEndpoints(call: ReturnType<typeof apiClient>, behaviours: { seller?: Behaviour; buyer?: Behaviour } = {}) {
  const parties: PartyEndpoint[] = [];
  const close = async () => {
    for (const p of parties) {
      if (p.endpoint.id) await call(p.credential, 'DELETE', `/v9/webhook_endpoints/${p.endpoint.id}`);
      await p.receiver.close();
    }
  };
  try {
    for (const [party, credential] of [
      ['seller', SELLER],
      ['buyer', BUYER],
    ] as const) {
      const receiver = await startReceiver(behaviours[party]);
      const p: PartyEndpoint = { party, credential, receiver, endpoint: { id: 0, secret: '' } };
      parties.push(p);
      const created = await call(credential, 'POST', '/v9/webhook_endpoints', { url: receiver.url });
      if (created.status !== 201) throw new Error(`endpoint for the ${party}: ${created.status} ${JSON.stringify(created.body)}`);
      p.endpoint = created.body;
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { parties, close };
}

/**
 * What the party acknowledged is exactly the events of `orders`: each once, per order in seq order
 * 1, 2, … with the given types, each signed with the endpoint's secret.
 */
export function expectEachOnceInOrder(p: PartyEndpoint, orders: readonly number[], types: readonly string[]) {
  const got = p.receiver.acknowledged;
  for (const order of orders) {
    const mine = got.filter((r) => r.body.order_id === order).map((r) => [r.body.seq, r.body.type]);
    expect(mine, `${p.party}, order ${order}`).toEqual(types.map((type, i) => [i + 1, type]));
  }
  expect(got, `${p.party}: only the orders run`).toHaveLength(orders.length * types.length);
  expect(new Set(got.map((r) => r.eventId)).size).toBe(got.length);
  for (const r of got) expect(signedWith(p.endpoint.secret, r), `${p.party}: signature of ${r.eventId}`).toBe(true);
}
