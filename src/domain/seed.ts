import { fieldPath } from '@fulfil/contract';
import type { SecretBox } from '../auth/secret-box.ts';
import type { Fixture } from './fixture.ts';
import { upsertTicketGroups } from '../inventory/upsert-ticket-groups.ts';
import { sandboxTwinOf } from '../sandbox/sandbox-twin.ts';
import type { Database } from '../db/client.ts';
import { brokerages, credentials, events, offices, orders, users } from '../db/schema.ts';
import { DEFAULT_DEADLINE_POLICY, deliverByFor, dueSoonAt, parseCalendarDate, type DeadlinePolicy } from './deadline-policy.ts';

export interface SeedCounts {
  brokerages: number;
  offices: number;
  users: number;
  credentials: number;
  events: number;
  orders: number;
  ticket_groups: number;
}

/**
 * Loads a fixture in one transaction. Reference data is upserted by its explicit id; orders and
 * credentials that exist are left as they are (a re-seed must not reset an order that has been
 * accepted since, nor re-encrypt a secret), so loading the same file twice changes nothing.
 * An order's deadline is its explicit deliver_by, else the policy's from in_hand_on; the ids of
 * the orders it wrote go to `opts.newOrders`, whose timers the caller arms at once
 * (src/timers/seed-timers.ts; the sweep is only the repair).
 */
export async function seedDatabase(
  database: Database,
  fixture: Fixture,
  box: SecretBox,
  policy: DeadlinePolicy = DEFAULT_DEADLINE_POLICY,
  opts: { newOrders?: number[] } = {},
): Promise<SeedCounts> {
  // Checked before the transaction: a bad date stops the seed before anything is written.
  const deadlines = new Map(fixture.orders.map((o, i) => [o.id, deadlineOf(o, i, policy)]));
  const counts: SeedCounts = { brokerages: 0, offices: 0, users: 0, credentials: 0, events: 0, orders: 0, ticket_groups: 0 };
  await database.db.transaction(async (tx) => {
    for (const b of fixture.brokerages) {
      await tx
        .insert(brokerages)
        .values({ id: b.id, name: b.name })
        .onConflictDoUpdate({ target: brokerages.id, set: { name: b.name } });
      counts.brokerages++;
    }
    for (const b of fixture.brokerages) {
      for (const o of b.offices) {
        await tx
          .insert(offices)
          .values({ id: o.id, brokerageId: b.id, name: o.name })
          .onConflictDoUpdate({ target: offices.id, set: { name: o.name, brokerageId: b.id } });
        counts.offices++;
      }
      for (const u of b.users) {
        await tx
          .insert(users)
          .values({ id: u.id, brokerageId: b.id, name: u.name, email: u.email })
          .onConflictDoUpdate({ target: users.id, set: { name: u.name, email: u.email, brokerageId: b.id } });
        counts.users++;
      }
    }
    for (const b of fixture.brokerages) {
      for (const c of b.credentials) {
        const inserted = await tx
          .insert(credentials)
          .values({
            token: c.token,
            kind: c.kind,
            mode: c.mode,
            // A test credential acts for the brokerage's sandbox twin, made (or completed) here.
            brokerageId: c.mode === 'test' ? await sandboxTwinOf(tx, b.id) : b.id,
            userId: c.kind === 'user' ? c.user_id : null,
            secretCiphertext: box.seal(c.secret, c.token),
          })
          .onConflictDoNothing()
          .returning({ token: credentials.token });
        counts.credentials += inserted.length;
      }
    }
    for (const e of fixture.events) {
      const occursAt = e.occurs_at ? new Date(e.occurs_at) : null;
      await tx
        .insert(events)
        .values({ id: e.id, name: e.name, occursAt })
        .onConflictDoUpdate({ target: events.id, set: { name: e.name, occursAt } });
      counts.events++;
    }
    for (const o of fixture.orders) {
      const inserted = await tx
        .insert(orders)
        .values({
          id: o.id,
          oid: o.oid,
          sellerOfficeId: o.seller_office_id,
          buyerBrokerageId: o.buyer_brokerage_id,
          delivery: o.delivery,
          quantity: o.quantity,
          recipientName: o.recipient.name,
          recipientEmail: o.recipient.email,
          ...deadlines.get(o.id),
        })
        .onConflictDoNothing()
        .returning({ id: orders.id });
      counts.orders += inserted.length;
      opts.newOrders?.push(...inserted.map((r) => Number(r.id)));
    }
    const byOffice = new Map<number, Fixture['ticket_groups']>();
    for (const tg of fixture.ticket_groups) byOffice.set(tg.office_id, [...(byOffice.get(tg.office_id) ?? []), tg]);
    for (const [officeId, groups] of byOffice) counts.ticket_groups += await upsertTicketGroups(tx, officeId, groups);
  });
  return counts;
}

function deadlineOf(o: Fixture['orders'][number], index: number, policy: DeadlinePolicy) {
  const eventStartsAt = o.event_starts_at ? new Date(o.event_starts_at) : null;
  const inHandOn = o.in_hand_on === undefined ? null : parseCalendarDate(o.in_hand_on, fieldPath('orders', index, 'in_hand_on'));
  const deliverBy = o.deliver_by ? new Date(o.deliver_by) : inHandOn ? deliverByFor(inHandOn, eventStartsAt, policy) : null;
  return { inHandOn, eventStartsAt, deliverBy, dueSoonAt: deliverBy && dueSoonAt(deliverBy, policy) };
}
