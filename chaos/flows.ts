import { randomUUID } from 'node:crypto';
import { signedFetch, type SigningCredential } from '../src/auth/signed-fetch.ts';
import type { Database } from '../src/db/client.ts';

/** The test world of the chaos runs: brokerage 1 sells, 2 buys, 3 is a stranger to every order. */
export const SELLER = { token: 'ChaosSellerToken0000000000000001', secret: 'chaos-seller-secret-00000000000000000001' };
export const BUYER = { token: 'ChaosBuyerToken00000000000000002', secret: 'chaos-buyer-secret-000000000000000000002' };
export const STRANGER = { token: 'ChaosStrangerToken00000000000003', secret: 'chaos-stranger-secret-000000000000000003' };
export const FIRST_ORDER = 100_000;

export function chaosFixture(orders: number) {
  return {
    brokerages: [
      {
        id: 1,
        name: 'Seller',
        offices: [{ id: 10, name: 'Seller NYC' }],
        users: [{ id: 100, name: 'Ann', email: 'ann@seller.test' }],
        credentials: [{ kind: 'api', ...SELLER }],
      },
      { id: 2, name: 'Buyer', offices: [{ id: 20, name: 'Buyer CHI' }], users: [], credentials: [{ kind: 'api', ...BUYER }] },
      { id: 3, name: 'Stranger', offices: [{ id: 30, name: 'Elsewhere' }], users: [], credentials: [{ kind: 'api', ...STRANGER }] },
    ],
    events: [],
    orders: Array.from({ length: orders }, (_, i) => ({
      id: FIRST_ORDER + i,
      oid: `9-${FIRST_ORDER + i}`,
      seller_office_id: 10,
      buyer_brokerage_id: 2,
      delivery: 'tbd',
      quantity: 1,
      recipient: { name: 'Bo Buyer', email: 'bo@buyer.test' },
    })),
    ticket_groups: [],
  };
}

/** Answers seen by clients, by class; `network` counts refused or reset connections. */
export interface Tally {
  calls: number;
  s200: number;
  s202: number;
  s4xx: number;
  s5xx: number;
  s503: number;
  network: number;
  other: Record<string, number>;
}

export const newTally = (): Tally => ({ calls: 0, s200: 0, s202: 0, s4xx: 0, s5xx: 0, s503: 0, network: 0, other: {} });

function count(t: Tally, status: number): void {
  t.calls++;
  if (status === 200) t.s200++;
  else if (status === 202) t.s202++;
  else if (status >= 400 && status < 500) t.s4xx++;
  else if (status >= 500) t.s5xx++;
  if (status === 503) t.s503++;
  if (![200, 202, 503].includes(status)) t.other[status] = (t.other[status] ?? 0) + 1;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One command as a careful client sends it: one Idempotency-Key for every retry; a 503 or a
 * refused connection is retried (the 503 contract: nothing was taken); a 202 is followed to
 * the command's status until it finished. Returns the final answer, or undefined past the deadline.
 */
export async function reliableCommand(
  base: string,
  cred: SigningCredential,
  method: string,
  path: string,
  body: object,
  tally: Tally,
  deadline: number,
): Promise<{ status: number; body: any } | undefined> {
  const key = randomUUID();
  while (Date.now() < deadline) {
    let res: Response;
    try {
      res = await signedFetch(base, cred, method, path, body, { 'idempotency-key': key }, AbortSignal.timeout(30_000));
    } catch {
      tally.network++;
      await sleep(200);
      continue;
    }
    const text = await res.text();
    count(tally, res.status);
    if (res.status === 503) {
      await sleep(200);
      continue;
    }
    const parsed = text ? JSON.parse(text) : undefined;
    if (res.status !== 202) return { status: res.status, body: parsed };
    const done = await followCommand(base, cred, parsed.url, deadline);
    if (done) return done;
  }
  return undefined;
}

async function followCommand(base: string, cred: SigningCredential, location: string, deadline: number) {
  while (Date.now() < deadline) {
    await sleep(250);
    try {
      const res = await signedFetch(base, cred, 'GET', location, undefined, {}, AbortSignal.timeout(30_000));
      if (res.status !== 200) continue;
      const status = (await res.json()) as { status: string; response?: { status: number; body: unknown } };
      if (status.response) return status.response as { status: number; body: any };
    } catch {
      // the API or Postgres is down: ask again
    }
  }
  return undefined;
}

/** accept → update to XMobileLink → complete, for one order. Returns whether it ended delivered. */
export async function runFlow(base: string, orderId: number, tally: Tally, deadline: number): Promise<boolean> {
  const accepted = await reliableCommand(base, SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 }, tally, deadline);
  if (accepted?.status !== 200) return false;
  const shipmentId = accepted.body.shipments[0].id;
  const updated = await reliableCommand(
    base,
    SELLER,
    'PUT',
    `/v9/shipments/${shipmentId}`,
    { mobile_transfer_type: 'XMobileLink', transfer_source: 'ticketmaster' },
    tally,
    deadline,
  );
  if (updated?.status !== 200) return false;
  const completed = await reliableCommand(
    base,
    SELLER,
    'PUT',
    `/v9/shipments/${updated.body.id}/complete`,
    { x_mobile_link: `https://claim.example.test/${orderId}`, transfer_source: 'ticketmaster' },
    tally,
    deadline,
  );
  return completed?.status === 200 && completed.body.state === 'delivered';
}

/** Runs `orders` flows, `concurrency` at a time, starting at order `first`. */
export async function runFlows(base: string, first: number, orders: number, concurrency: number, tally: Tally, deadline: number) {
  let next = 0;
  let failed = 0;
  const lane = async () => {
    while (next < orders) {
      const id = first + next++;
      if (!(await runFlow(base, id, tally, deadline))) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { failed };
}

/** What Postgres says about the flows' orders: the ground truth of lost, duplicated and stuck. */
export async function checkOutcome(db: Database, first: number, orders: number) {
  const sql = db.sql!;
  const [o] = await sql`
    select count(*) filter (where state <> 'completed')::int as lost
    from orders where id >= ${first} and id < ${first + orders}`;
  const [s] = await sql`
    select
      count(*) filter (where rows > 2 or live > 1)::int as duplicated
    from (
      select order_id, count(*) as rows, count(*) filter (where replaced_by is null) as live
      from shipments where order_id >= ${first} and order_id < ${first + orders} group by order_id
    ) per_order`;
  const [c] = await sql`select count(*) filter (where status in ('queued', 'running'))::int as stuck from commands`;
  return { lost: o!.lost as number, duplicated: s!.duplicated as number, stuck: c!.stuck as number };
}
