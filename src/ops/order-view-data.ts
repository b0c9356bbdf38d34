import { asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { StateValue } from 'xstate';
import type { Executor } from '../db/client.ts';
import { commands, orders, shipmentEvents, shipments, testClocks } from '../db/schema.ts';
import { shipmentEventColumns, type ShipmentEventRow } from '../events/public-event.ts';
import { loadOrderWebhooks, type OrderWebhookDelivery } from './order-view-webhooks.ts';
import { loadOrderFiles, type OrderFile } from './order-view-files.ts';
import { loadOrderMailing, type OrderMailing } from './order-view-mailed.ts';
import { loadOrderParties, loadWhatWasSent, type OrderParties } from './order-view-sent.ts';
import { loadCompletion, type CompletionView } from './order-view-completion.ts';
import { holdsVia, type HoldRow } from '../db/sql/holds.ts';

export interface OrderViewData {
  order: typeof orders.$inferSelect;
  /** Every version of the order's shipment, oldest first; each but the live one names its replacement. */
  shipments: Array<{
    id: number;
    type: string;
    state: string;
    replacedBy: number | null;
    createdAt: Date;
    replacedAt: Date | null;
    deliveredAt: Date | null;
    stateValue: StateValue | undefined;
  }>;
  events: ShipmentEventRow[];
  commands: Array<{
    id: string;
    name: string;
    status: string;
    resultStatus: number | null;
    attempts: number;
    createdAt: Date;
    finishedAt: Date | null;
    error: string | undefined;
  }>;
  /** Each event of the order per webhook endpoint it was owed to. */
  webhooks: OrderWebhookDelivery[];
  /** Files uploaded to its shipments: e-tickets (replaced ones too) and proofs of transfer. */
  files: OrderFile[];
  /** The parties by name. */
  parties: OrderParties;
  /** A mailed shipment's address, tracking number, label and scans; undefined for the other types. */
  mailing: OrderMailing | undefined;
  /** The live shipment as the buyer reads it; undefined before acceptance. */
  sent: Record<string, unknown> | undefined;
  /** What completed it: the platform, the link, the per-seat tickets. */
  completion: CompletionView;
  /** A test order's test clock, when it lives at one. */
  clock: { id: number; name: string | null; frozenTime: Date; status: string } | undefined;
  /** Its holds, oldest first, released ones included. */
  holds: HoldRow[];
}

/** How many commands the page lists (newest last); an order sees a handful in practice. */
export const COMMANDS_SHOWN = 200;

/**
 * Everything an operator asks about one order, read in a few queries. The commands are those whose
 * payload names the order or one of its shipments, and those a history row points to (a command
 * pruned by retention then simply no longer shows).
 */
export async function loadOrderView(ex: Executor, orderId: number): Promise<OrderViewData | undefined> {
  const [order] = await ex.select().from(orders).where(eq(orders.id, orderId));
  if (!order) return undefined;
  const versions = await ex
    .select({
      id: shipments.id,
      type: shipments.type,
      state: shipments.state,
      replacedBy: shipments.replacedBy,
      createdAt: shipments.createdAt,
      replacedAt: shipments.replacedAt,
      deliveredAt: shipments.deliveredAt,
      snapshot: shipments.snapshot,
    })
    .from(shipments)
    .where(eq(shipments.orderId, orderId))
    .orderBy(asc(shipments.id));
  const events = await ex
    .select(shipmentEventColumns)
    .from(shipmentEvents)
    .where(eq(shipmentEvents.orderId, orderId))
    .orderBy(asc(shipmentEvents.seq));
  const shipmentIds = versions.map((s) => String(s.id));
  const eventCommandIds = [...new Set(events.map((e) => e.commandId).filter((c): c is string => !!c))];
  const touching = [
    sql`${commands.payload}->>'order_id' = ${String(orderId)}`,
    ...(shipmentIds.length > 0 ? [inArray(sql`${commands.payload}->>'shipment_id'`, shipmentIds)] : []),
    ...(eventCommandIds.length > 0 ? [inArray(commands.id, eventCommandIds)] : []),
  ];
  const rows = await ex
    .select({
      id: commands.id,
      name: commands.name,
      status: commands.status,
      resultStatus: commands.resultStatus,
      resultBody: commands.resultBody,
      attempts: commands.attempts,
      createdAt: commands.createdAt,
      finishedAt: commands.finishedAt,
    })
    .from(commands)
    .where(or(...touching))
    .orderBy(asc(commands.createdAt))
    .limit(COMMANDS_SHOWN);
  return {
    order,
    shipments: versions.map(({ snapshot, ...s }) => ({ ...s, stateValue: (snapshot as { value?: StateValue } | null)?.value })),
    events,
    commands: rows.map(({ resultBody, ...c }) => ({ ...c, error: firstErrorMessage(resultBody) })),
    webhooks: await loadOrderWebhooks(ex, orderId),
    files: await loadOrderFiles(ex, orderId),
    parties: await loadOrderParties(ex, order.sellerOfficeId, order.buyerBrokerageId),
    sent: await loadWhatWasSent(ex, orderId),
    completion: await loadCompletion(ex, orderId, events),
    mailing: await loadOrderMailing(ex, orderId),
    clock: order.testClockId === null ? undefined : await loadClock(ex, order.testClockId),
    holds: await holdsVia(ex, orderId),
  };
}

async function loadClock(ex: Executor, id: number): Promise<OrderViewData['clock']> {
  const [clock] = await ex
    .select({ id: testClocks.id, name: testClocks.name, frozenTime: testClocks.frozenTime, status: testClocks.status })
    .from(testClocks)
    .where(eq(testClocks.id, id));
  return clock;
}

function firstErrorMessage(body: unknown): string | undefined {
  const errors = (body as { errors?: Array<{ code?: string; message?: string }> } | null)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  return `${errors[0]!.code ?? 'error'}: ${errors[0]!.message ?? ''}`;
}
