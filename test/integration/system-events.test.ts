import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPMENT_EVENT_TOPIC } from '@fulfil/contract';
import type { EventFacts, SystemEventFacts } from '../../src/db/sql/append-event.ts';
import { appendOrderEvent } from '../../src/db/sql/append-order-event.ts';
import { apiClient } from '../support/api.ts';
import { runCli } from '../support/cli.ts';
import { streamMessages } from '../support/events-stream.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, until } from '../support/webhook-receiver.ts';

// An event no party caused (a deadline passing, an operator acting), appended through the path
// such events take (appendOrderEvent: the order's counter bumped, the live shipment named, the
// event and its details written with the outbox row). Then every reader renders it with the
// system actor and its details.

const SYSTEM = { type: 'system', reason: 'deadline_passed' } as const;
const DETAILS = { deliver_by: '2026-12-01T01:00:00.000Z' };

describe('system events', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', RELAY_INTERVAL_MS: '50', EVENTS_STREAM: 'on' } });
    await t.seed(baseFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  async function appendSystemEvent(orderId: number): Promise<string> {
    const [live] = await t.db.database.sql!<[{ id: number; type: string; state: string }]>`
      select id::int, type, state from shipments where order_id = ${orderId} and replaced_by is null`;
    const facts: SystemEventFacts = {
      orderId,
      kind: 'overdue',
      shipmentId: live.id,
      from: { type: live.type, state: live.state },
      to: { type: live.type, state: live.state },
      actor: SYSTEM,
      details: DETAILS,
    };
    const { eventId } = await t.db.database.transaction((tx) => appendOrderEvent(tx, facts));
    return eventId;
  }

  it('is stored, relayed and rendered with the system actor and no command: feed, order history, webhooks, events stream', async () => {
    const receiver = await startReceiver();
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    try {
      const hook = await call(BUYER, 'POST', '/v9/webhook_endpoints', { url: receiver.url });
      expect(hook.status).toBe(201);
      expect((await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 })).status).toBe(200);
      const eventId = await appendSystemEvent(ORDERS.tbd);

      const [stored] = await t.db.database.sql!`select actor_type, actor_reason, actor_brokerage_id, actor_role, command_id
                                                from shipment_events where event_id = ${eventId}`;
      expect(stored).toEqual({
        actor_type: 'system',
        actor_reason: 'deadline_passed',
        actor_brokerage_id: null,
        actor_role: null,
        command_id: null,
      });

      const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Parameters<typeof openApiChecker>[0];
      const checker = openApiChecker(doc);
      for (const cred of [SELLER, BUYER]) {
        const history = await call(cred, 'GET', `/v9/orders/${ORDERS.tbd}/events`);
        checker.check('GET', '/v9/orders/{id}/events', history.status, history.body);
        expect(history.body.events.map((e: { seq: number; actor: { type: string } }) => [e.seq, e.actor.type])).toEqual([
          [1, 'party'],
          [2, 'system'],
        ]);
        expect(history.body.events[1]).toMatchObject({
          event_id: eventId,
          kind: 'overdue',
          actor: SYSTEM,
          command_id: null,
          details: DETAILS,
        });
        expect(history.body.events[0].details).toBeNull();
        expect(history.body.events[1].actor).toEqual(SYSTEM);

        let feed: { events: Array<{ id: string; type: string; data: { event: object } }> } | undefined;
        await until('the system event in the feed', async () => {
          const r = await call(cred, 'GET', '/v9/events');
          checker.check('GET', '/v9/events', r.status, r.body);
          feed = r.body;
          return r.body.events.some((e: { id: string }) => e.id === eventId);
        });
        const object = feed!.events.find((e) => e.id === eventId)!;
        expect(object.type).toBe('shipment.overdue');
        expect(object.data.event).toEqual(history.body.events[1]);
      }

      await until('the webhook delivery', () => receiver.acknowledged.some((r) => r.eventId === eventId));
      const delivered = receiver.acknowledged.find((r) => r.eventId === eventId)!;
      expect(delivered.body.data.event).toMatchObject({ actor: SYSTEM, command_id: null, details: DETAILS });
      expect(delivered.body.type).toBe('shipment.overdue');

      const streamed = await streamMessages(redis, t.prefix);
      const message = streamed.find((m) => m.event_id === eventId);
      expect(message?.topic).toBe(SHIPMENT_EVENT_TOPIC);
      expect(message).toMatchObject({
        event_id: eventId,
        order_id: ORDERS.tbd,
        seq: 2,
        kind: 'overdue',
        actor: SYSTEM,
        command_id: null,
        details: DETAILS,
      });
      const first = (await call(SELLER, 'GET', `/v9/orders/${ORDERS.tbd}/events`)).body.events[0];
      const partyMessage = streamed.find((m) => m.event_id === first.event_id)!;
      expect(partyMessage.actor).toEqual({ type: 'party', brokerage_id: 1, user_id: null, role: 'seller' });
      expect(partyMessage.command_id).toEqual(first.command_id);
    } finally {
      redis.disconnect();
      await receiver.close();
    }
  });

  it('the operator views name a system actor by its reason: order view, orders show, shipments history', async () => {
    const tbd = (await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd3}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
    await appendSystemEvent(ORDERS.tbd3);
    const page = await (await fetch(`${t.url}/ops/orders/${ORDERS.tbd3}`)).text();
    expect(page).toContain('<td>system (deadline_passed)</td>');
    expect(page).toContain('<td>seller (brokerage 1)</td>');
    expect(page).not.toContain('(brokerage null)');
    const env = {
      DATABASE_URL: t.db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: t.prefix,
      LOG_LEVEL: 'silent',
      FULFIL_SECRET_KEY: t.config.FULFIL_SECRET_KEY!,
    };
    const show = await runCli(['orders', 'show', String(ORDERS.tbd3)], env);
    expect(show.code).toBe(0);
    expect(show.lines.filter((l) => / by /.test(l)).map((l) => l.slice(l.indexOf(' by ')))).toEqual([
      expect.stringMatching(/^ by seller \(brokerage 1\), command c-/),
      ' by system (deadline_passed), command -',
    ]);
    const history = await runCli(['shipments', 'history', String(tbd)], env);
    expect(history.code).toBe(0);
    expect(history.lines[1]).toMatch(/seller \(brokerage 1\), command c-\S+$/);
    expect(history.lines[2]).toMatch(/system \(deadline_passed\)$/);
  }, 60_000);

  it('an event of an order with no shipment leaves none: order.* type, null shipment fields, in history, feed and webhook', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: receiver.url });
      expect(hook.status).toBe(201);
      const facts: EventFacts = {
        orderId: ORDERS.flash,
        kind: 'rejected',
        shipmentId: null,
        from: null,
        to: null,
        actor: { brokerageId: 1, userId: null, role: 'seller' },
        commandId: 'c-test-rejected',
        details: { reason: 'Other' },
      };
      const { eventId, seq } = await t.db.database.transaction((tx) => appendOrderEvent(tx, facts));
      expect(seq).toBe(1);
      const history = await call(SELLER, 'GET', `/v9/orders/${ORDERS.flash}/events`);
      expect(history.body.events).toEqual([
        expect.objectContaining({
          event_id: eventId,
          kind: 'rejected',
          shipment_id: null,
          new_shipment_id: null,
          to_type: null,
          to_state: null,
          details: { reason: 'Other' },
        }),
      ]);
      await until('the delivery', () => receiver.acknowledged.some((r) => r.eventId === eventId));
      const delivered = receiver.acknowledged.find((r) => r.eventId === eventId)!;
      expect(delivered.body.type).toBe('order.rejected');
      expect(delivered.body.data.shipment).toBeNull();
      expect(delivered.body.data.event).toEqual(history.body.events[0]);
    } finally {
      await receiver.close();
    }
  });

  it('the table refuses an actor that is neither a party with its command nor the system with a reason', async () => {
    const sql = t.db.database.sql!;
    const insert = (
      id: string,
      actor: { type: string; brokerage: number | null; role: string | null; reason: string | null; command: string | null },
    ) =>
      sql`insert into shipment_events (event_id, order_id, seq, kind, to_type, to_state, actor_type, actor_brokerage_id, actor_role, actor_reason, command_id)
          values (${id}, ${ORDERS.tbd2}, ${Number(id.slice(-1))}, 'created', 'TBD', 'pending', ${actor.type}, ${actor.brokerage}, ${actor.role}, ${actor.reason}, ${actor.command})`;
    const party = { type: 'party', brokerage: 1, role: 'seller', reason: null, command: 'c-1' };
    const system = { type: 'system', brokerage: null, role: null, reason: 'operator_action', command: null };
    for (const [id, actor] of [
      ['no-command-1', { ...party, command: null }],
      ['no-brokerage-2', { ...party, brokerage: null }],
      ['odd-role-3', { ...party, role: 'operator' }],
      ['party-reason-4', { ...party, reason: 'why' }],
      ['system-command-5', { ...system, command: 'c-5' }],
      ['system-party-6', { ...system, brokerage: 1, role: 'seller' }],
      ['no-reason-7', { ...system, reason: null }],
      ['other-type-8', { ...system, type: 'timer' }],
    ] as const) {
      await expect(insert(id, actor), id).rejects.toThrow(/shipment_events_actor/);
    }
    await insert('party-ok-1', party);
    await insert('system-ok-2', system);
  });
});
