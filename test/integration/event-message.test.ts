/**
 * The relay builds each event's message from its row (eventMessageOf); the writer gives the row
 * its values as the message it would have sent (eventMessage). The two are one shape: what the
 * relay builds is what the writer's message says, with the statement's seq and new shipment id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventMessage, eventMessageOf, type EventFacts, type SystemEventFacts } from '../../src/db/sql/append-event.ts';
import { appendOrderEvent } from '../../src/db/sql/append-order-event.ts';
import type { TestDatabase } from '../support/database.ts';
import { createSeededTestDatabase } from '../support/seeded-database.ts';
import { baseFixture, ORDERS } from '../support/fixtures.ts';

describe('an event message', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createSeededTestDatabase(baseFixture());
  });
  afterAll(async () => {
    await db?.drop();
  });

  const party: EventFacts = {
    orderId: ORDERS.tbd,
    kind: 'cancel_proposed',
    shipmentId: null,
    from: null,
    to: null,
    details: { reason: 'buyer_request', notes: 'née "Zoë"\n', proposed_by: 'seller' },
    actor: { brokerageId: 1, userId: 100, role: 'seller' },
    commandId: 'c-message-1',
  };
  const system: SystemEventFacts = {
    orderId: ORDERS.tbd2,
    kind: 'overdue',
    shipmentId: null,
    from: null,
    to: null,
    details: { deliver_by: '2026-12-01T01:00:00.000Z' },
    actor: { type: 'system', reason: 'deadline_passed' },
  };
  const bare: EventFacts = {
    ...party,
    orderId: ORDERS.flash,
    kind: 'updated',
    details: undefined,
    actor: { ...party.actor, userId: null },
  };

  it.each([
    ['a party event with details', party],
    ['a system event', system],
    ['an event without details or user', bare],
  ])('%s: as the relay builds it from the row, as the writer gave it', async (_name, facts) => {
    const { eventId, seq } = await db.database.transaction((tx) => appendOrderEvent(tx, facts));
    const [row] = await db.database.sql!.unsafe(
      `select ${eventMessageOf('e')} as message, e.at from shipment_events e where e.event_id = $1`,
      [eventId],
    );
    const written = JSON.parse(eventMessage(facts)) as Record<string, unknown>;
    // The writer's own id and clock are its call's; the statement adds seq and the new shipment id.
    expect(row!.message).toEqual({
      ...written,
      event_id: eventId,
      at: new Date(row!.at).toISOString(),
      seq,
      new_shipment_id: null,
      livemode: true,
      test_clock: null,
    });
    expect(Object.keys(row!.message).sort()).toEqual(
      Object.keys({ ...written, seq, new_shipment_id: null, livemode: true, test_clock: null }).sort(),
    );
  });
});
