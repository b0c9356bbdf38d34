import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { FulfilmentClient, type AnswerBodies, type CommandOutcome } from '../../src/index.ts';
import { shipmentAnswers } from '@fulfil/contract';
import { ISO } from '../support/api.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, ORDERS } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The producer client of upstream systems against the real service (workers, Postgres, Redis):
// every command through the queues, answered with the same status and body as the HTTP call.
// Refusals before Redis, timeouts and an unreachable Redis: client-validation.test.ts.

const SELLER = { brokerageId: 1 };

describe('FulfilmentClient', () => {
  let t: TestService;
  let client: FulfilmentClient;
  let redis: Redis;

  beforeAll(async () => {
    t = await startTestService();
    const fixture = baseFixture([...Array.from({ length: 7 }, (_, i) => 740 + i), 750, 751]);
    await t.seed(fixture);
    client = new FulfilmentClient({ redisUrl: t.config.REDIS_URL, prefix: t.prefix, defaultTimeoutMs: 15_000 });
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await client?.close();
    redis?.disconnect();
    await t?.stop();
  });

  const sql = () => t.db.database.sql!;
  const shipmentsOf = (orderId: number) => sql()`select id, type, state from shipments where order_id = ${orderId} order by id`;
  async function waitFinished(commandId: string) {
    for (let i = 0; i < 300; i++) {
      const [row] = await sql()`select status, result_status, result_body from commands where id = ${commandId}`;
      if (row && (row.status === 'succeeded' || row.status === 'failed')) return row;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`command ${commandId} did not finish`);
  }

  it('accept → XMobileLink → complete with a link: each awaited, each answering the HTTP contract', async () => {
    const accepted = await client.acceptOrder(
      { order_id: ORDERS.tbd, reviewer_id: 100 },
      { ...SELLER, await: true, commandId: 'up-accept-700' },
    );
    expect(accepted).toEqual({
      commandId: 'up-accept-700',
      status: 200,
      body: {
        id: ORDERS.tbd,
        oid: `1001-${ORDERS.tbd}`,
        state: 'accepted',
        shipments: [{ id: expect.any(Number), url: expect.stringMatching(/^\/shipments\/\d+$/), type: 'TBD' }],
        livemode: true,
      },
    });
    // Answers are typed per command: a 200 narrows the body to that command's answer, which is
    // also exactly what its schema describes.
    if (accepted.status !== 200) throw new Error(`accept refused: ${JSON.stringify(accepted.body)}`);
    expectTypeOf(accepted.body).toEqualTypeOf<AnswerBodies['order.accept']>();
    shipmentAnswers.acceptedOrder.parse(accepted.body);
    const tbd = accepted.body.shipments[0]!;

    const updated = await client.updateShipment(
      { shipment_id: tbd.id, mobile_transfer_type: 'XMobileLink', transfer_source: 'ticketmaster' },
      { ...SELLER, await: true },
    );
    if (updated.status !== 200) throw new Error(`update refused: ${JSON.stringify(updated.body)}`);
    expect(updated.commandId).toMatch(/^u-[0-9a-f-]{36}$/);
    expectTypeOf(updated.body).toEqualTypeOf<AnswerBodies['shipment.update']>();
    const link = shipmentAnswers.updatedShipment.parse(updated.body);
    expect(link).toEqual({ id: expect.any(Number), url: `/shipments/${link.id}`, type: 'XMobileLink', state: 'pending', livemode: true });
    expect(link.id).not.toBe(tbd.id);

    const completed = await client.completeShipment(
      { shipment_id: link.id, x_mobile_link: 'https://claim.example.test/abc', transfer_source: 'ticketmaster' },
      { ...SELLER, await: true },
    );
    if (completed.status !== 200) throw new Error(`complete refused: ${JSON.stringify(completed.body)}`);
    expectTypeOf(completed.body).toEqualTypeOf<AnswerBodies['shipment.complete']>();
    shipmentAnswers.completedShipment.parse(completed.body);
    expect(completed.body).toEqual({
      id: link.id,
      url: `/shipments/${link.id}`,
      type: 'XMobileLink',
      state: 'delivered',
      x_mobile_link: 'https://claim.example.test/abc',
      livemode: true,
    });
    const [order] = await sql()`select state from orders where id = ${ORDERS.tbd}`;
    expect(order!.state).toBe('completed');
    // The event log names the client's command ids; the results are also stored in Postgres.
    const events = await sql()`select seq, kind, command_id from shipment_events where order_id = ${ORDERS.tbd} order by seq`;
    expect(events.map((e) => [e.seq, e.kind, e.command_id])).toEqual([
      [1, 'created', 'up-accept-700'],
      [2, 'updated', updated.commandId],
      [3, 'completed', completed.commandId],
    ]);
    const [stored] = await sql()`select status, result_status, result_body from commands where id = ${completed.commandId}`;
    expect(stored).toEqual({ status: 'succeeded', result_status: 200, result_body: completed.body });
  });

  it('fire-and-forget answers only the command id; the result appears in the commands table', async () => {
    const sent = await client.acceptOrder({ order_id: ORDERS.tbd2, reviewer_id: 100 }, SELLER);
    expect(Object.keys(sent)).toEqual(['commandId']);
    const row = await waitFinished(sent.commandId);
    expect(row.status).toBe('succeeded');
    expect(row.result_status).toBe(200);
    expect(row.result_body).toEqual({
      id: ORDERS.tbd2,
      oid: `1001-${ORDERS.tbd2}`,
      state: 'accepted',
      shipments: [{ id: expect.any(Number), url: expect.any(String), type: 'TBD' }],
      livemode: true,
    });
    // A legacy type name is answered with the new one, as over HTTP; XMobile carries the recipient.
    const shipmentId = row.result_body.shipments[0].id;
    const updated = await client.updateShipment({ shipment_id: shipmentId, mobile_transfer_type: 'TMMobile' }, { ...SELLER, await: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      type: 'XMobile',
      state: 'pending',
      ship_to_name: 'Bo Buyer',
      email_address: { id: expect.any(Number), url: null, address: 'bo@example.test', label: null, updated_at: expect.stringMatching(ISO) },
    });
  });

  it('the same command id twice answers the first result and runs once, even after Redis dropped the job', async () => {
    const cmd = { order_id: ORDERS.tbd3, reviewer_id: 100 };
    const opts = { ...SELLER, await: true, commandId: 'up-accept-704' } as const;
    const [first, second] = await Promise.all([client.acceptOrder(cmd, opts), client.acceptOrder(cmd, opts)]);
    expect(first.status).toBe(200);
    expect(second).toEqual(first);
    // The job gone from Redis (trimmed, failed over): Postgres still answers the first result.
    const queue = new Queue('commands', { prefix: t.prefix, connection: redis });
    try {
      expect(await (await queue.getJob('up-accept-704'))!.remove()).toBeUndefined();
      expect(await queue.getJob('up-accept-704')).toBeUndefined();
      const third = await client.acceptOrder(cmd, opts);
      expect(third).toEqual(first);
    } finally {
      await queue.close();
    }
    expect(await shipmentsOf(ORDERS.tbd3)).toHaveLength(1);
    const [events] = await sql()`select count(*)::int as n from shipment_events where order_id = ${ORDERS.tbd3}`;
    expect(events!.n).toBe(1);
  });

  it('the same command id with another payload answers 409 idempotency_conflict while Redis keeps the job', async () => {
    const first = await client.acceptOrder({ order_id: 740, reviewer_id: 100 }, { ...SELLER, await: true, commandId: 'up-accept-740' });
    expect(first.status).toBe(200);
    const other = await client.acceptOrder({ order_id: 741, reviewer_id: 100 }, { ...SELLER, await: true, commandId: 'up-accept-740' });
    expect(other.status).toBe(409);
    expect((other.body as any).errors[0].code).toBe('idempotency_conflict');
    // Fire-and-forget has no result to carry it: the conflict is thrown.
    await expect(client.acceptOrder({ order_id: 741, reviewer_id: 100 }, { ...SELLER, commandId: 'up-accept-740' })).rejects.toMatchObject({
      code: 'idempotency_conflict',
      status: 409,
    });
    // Another acting brokerage under the same id is another command too.
    const stranger = await client.acceptOrder(
      { order_id: 740, reviewer_id: 100 },
      { brokerageId: 3, await: true, commandId: 'up-accept-740' },
    );
    expect(stranger.status).toBe(409);
    expect(await shipmentsOf(741)).toHaveLength(0);
    const [order] = await sql()`select state from orders where id = 741`;
    expect(order!.state).toBe('pending');
  });

  // Once Redis no longer holds the job, only workers/runner.ts can judge a reused id.
  it('the same command id with another payload answers 409 after Redis dropped the first job', async () => {
    const first = await client.acceptOrder({ order_id: 746, reviewer_id: 100 }, { ...SELLER, await: true, commandId: 'up-accept-746' });
    expect(first.status).toBe(200);
    const queue = new Queue('commands', { prefix: t.prefix, connection: redis });
    try {
      await (await queue.getJob('up-accept-746'))!.remove();
    } finally {
      await queue.close();
    }
    const late = await client.acceptOrder({ order_id: 741, reviewer_id: 100 }, { ...SELLER, await: true, commandId: 'up-accept-746' });
    expect(late.status).toBe(409);
    expect((late.body as any).errors[0].code).toBe('idempotency_conflict');
  });

  it('the order commands: reject, cancel both ways and withdraw, the in-hand date', async () => {
    const rejected = await client.rejectOrder({ order_id: 750, reviewer_id: 100, reason: 'Duplicate Order' }, { ...SELLER, await: true });
    expect(rejected).toMatchObject({ status: 200, body: { id: 750, state: 'rejected', rejection_reason: 'Duplicate Order' } });
    await expect(client.rejectOrder({ order_id: 750, reviewer_id: 100, reason: 'Sold' as never }, SELLER)).rejects.toMatchObject({
      field: 'reason',
    });
    await client.acceptOrder({ order_id: 751, reviewer_id: 100 }, { ...SELLER, await: true });
    const dated = await client.updateOrder({ order_id: 751, in_hand_on: '2027-01-15' }, { ...SELLER, await: true });
    expect(dated.body).toMatchObject({ in_hand_on: '2027-01-15', deliver_by: '2027-01-16T01:00:00.000Z' });
    const proposed = await client.cancelOrder({ order_id: 751, reason: 'postponed' }, { brokerageId: 2, await: true });
    expect(proposed.body).toMatchObject({ state: 'cancel_proposed', cancel_proposed_by: 'buyer' });
    const withdrawn = await client.withdrawOrderCancellation({ order_id: 751 }, { brokerageId: 2, await: true });
    expect(withdrawn.body).toMatchObject({ state: 'accepted' });
    await client.cancelOrder({ order_id: 751 }, { ...SELLER, await: true });
    const canceled = await client.cancelOrder({ order_id: 751 }, { brokerageId: 2, await: true });
    expect(canceled.body).toMatchObject({ state: 'canceled' });
  });

  it('a domain rejection is a result, not a throw', async () => {
    const accepted = await client.acceptOrder({ order_id: 742, reviewer_id: 100 }, { ...SELLER, await: true });
    const tbdId = (accepted.body as any).shipments[0].id;
    const completeTbd = await client.completeShipment({ shipment_id: tbdId }, { ...SELLER, await: true });
    expect(completeTbd.status).toBe(422);
    expect((completeTbd.body as any).errors[0]).toMatchObject({ code: 'invalid_transition' });
    const again = await client.acceptOrder({ order_id: 742, reviewer_id: 100 }, { ...SELLER, await: true });
    expect(again.status).toBe(422);
    const byBuyer = await client.acceptOrder({ order_id: 743, reviewer_id: 200 }, { brokerageId: 2, await: true });
    expect(byBuyer.status).toBe(403);
    const unknown = await client.acceptOrder({ order_id: 999_999, reviewer_id: 100 }, { ...SELLER, await: true });
    expect(unknown.status).toBe(404);
    // reviewer_id of another brokerage: a 400 only the worker can tell.
    const foreignReviewer = await client.acceptOrder({ order_id: 743, reviewer_id: 200 }, { ...SELLER, await: true });
    expect(foreignReviewer.status).toBe(400);
    expect((foreignReviewer.body as any).errors[0]).toMatchObject({ code: 'invalid_params', field: 'reviewer_id' });
  });

  it('the inventory commands: upsert, map, remove, and an office of another brokerage', async () => {
    const records = [
      { remote_id: 9001, quantity: 2, section: '101', row: 'A', seats: [{ seat: '1' }, { seat: '2' }], price: '150.00' },
      { remote_id: 9002, quantity: 4, price: 80 },
    ];
    const upserted = await client.upsertInventory({ office_id: 10, records }, { ...SELLER, await: true });
    expect(upserted).toMatchObject({ status: 200, body: { upserted: 2 } });
    const mapped = await client.mapInventory(
      {
        office_id: 10,
        mappings: [
          { remote_id: 9001, id: 990001, event_id: 5000 },
          { remote_id: 9002, id: null, event_id: null },
        ],
      },
      { ...SELLER, await: true },
    );
    expect(mapped).toMatchObject({ status: 200, body: { mapped: 1, unmapped: 1 } });
    const [row] = await sql()`select id::int as id, event_id::int as event_id from ticket_groups where office_id = 10 and remote_id = 9001`;
    expect(row).toEqual({ id: 990001, event_id: 5000 });
    const removed = await client.send('inventory.remove', { officeId: 10, remoteIds: [9001, 9002, 9003] }, { ...SELLER, await: true });
    expect(removed).toMatchObject({ status: 200, body: { removed: 2 } });
    const foreign = await client.removeInventory({ office_id: 20, remote_ids: [1] }, { ...SELLER, await: true });
    if (foreign.status === 200) throw new Error('a foreign office was answered 200');
    // A refusal narrows the body to the error body; its status to the statuses workers refuse with.
    expectTypeOf(foreign.status).toEqualTypeOf<400 | 401 | 403 | 404 | 409 | 410 | 422>();
    expect(foreign.status).toBe(401);
    expect(foreign.body.errors[0]!.code).toBe('unauthorized');
  });

  it('many awaited commands at once share the client listeners; a handed-in connection is left open by close()', async () => {
    const own = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    const shared = new FulfilmentClient({ connection: own, prefix: t.prefix });
    try {
      const accepted = await shared.acceptOrder({ order_id: 745, reviewer_id: 100 }, { ...SELLER, await: true });
      const id = (accepted.body as any).shipments[0].id;
      // Eight racing updates of one shipment: one wins, the rest are 410 results naming the winner.
      const types = ['XMobile', 'XMobileLink', 'XSeats', 'Eticket', 'XMobile', 'XSeats', 'XMobileLink', 'Eticket'] as const;
      const results: CommandOutcome[] = await Promise.all(
        types.map((type) => shared.updateShipment({ shipment_id: id, mobile_transfer_type: type }, { ...SELLER, await: true })),
      );
      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect(r.status).toBe(410);
        expect((r.body as any).errors[0].replaced_by).toBe((winners[0]!.body as any).id);
      }
    } finally {
      await shared.close();
    }
    expect(await own.ping()).toBe('PONG');
    own.disconnect();
  });
});
