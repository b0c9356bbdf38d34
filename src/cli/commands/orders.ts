import type { ParseArgsConfig } from 'node:util';
import { loadConfig } from '../../config.ts';
import { AppError, InvalidParams } from '@fulfil/contract';
import { isoTime } from '../../iso-time.ts';
import { ORDER_FILTERS } from '../../ops/order-filters.ts';
import { searchOrders } from '../../ops/order-search.ts';
import { actorText } from '../../events/actor-text.ts';
import { loadOrderView } from '../../ops/order-view-data.ts';
import type { OrderWebhookDelivery } from '../../ops/order-view-webhooks.ts';
import { withCliDatabase } from '../database.ts';
import { snakeJson } from '../snake-json.ts';
import { intArg, UsageError, type CliIo, type CommandModule } from '../command.ts';

const flag = (name: string) => name.replace(/_/g, '-');
const time = (d: Date | null | undefined) => (d ? isoTime(d) : '-');

/** A refused filter is the user's to fix: told with the command's usage, as a bad flag is. */
async function told<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // The search names its parameters as the page does (created_after:); here they are flags.
    if (err instanceof AppError && err.status === 400) {
      const messages = [err.message, ...(err instanceof InvalidParams ? err.more.map((p) => p.message) : [])];
      throw new UsageError(messages.map((m) => m.replace(/^(\w+):/, (_m, name: string) => `--${flag(name)}:`)).join('\n'));
    }
    throw err;
  }
}

const filterOptions: NonNullable<ParseArgsConfig['options']> = Object.fromEntries(
  ORDER_FILTERS.map((f) => [flag(f.name), { type: f.flag ? 'boolean' : 'string' }]),
);

export const ordersList: CommandModule = {
  options: { ...filterOptions, limit: { type: 'string' }, after: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, io) {
    if (positionals.length > 0) throw new UsageError(`unexpected ${positionals.join(' ')}`);
    const params: Record<string, string | undefined> = {};
    for (const f of ORDER_FILTERS) {
      const value = values[flag(f.name)];
      params[f.name] = f.flag ? (value ? f.choices![0] : undefined) : (value as string | undefined);
    }
    params.limit = values.limit as string | undefined;
    params.after = values.after as string | undefined;
    return withCliDatabase(loadConfig(), async (database) => {
      const page = await told(() => searchOrders(database.db, params));
      if (values.json) {
        io.out(snakeJson(page));
        return 0;
      }
      io.out(
        `${'ORDER'.padEnd(10)}${'STATE'.padEnd(16)}${'LIVE SHIPMENT'.padEnd(32)}${'SELLER'.padEnd(22)}${'BUYER'.padEnd(7)}${'DELIVER BY'.padEnd(26)}${'CREATED'.padEnd(26)}UPDATED`,
      );
      for (const o of page.orders) {
        const ship = o.shipment ? `#${o.shipment.id} ${o.shipment.type}/${o.shipment.state}` : '-';
        io.out(
          `${String(o.id).padEnd(10)}${o.state.padEnd(16)}${ship.padEnd(32)}${`${o.sellerOfficeId} (brk ${o.sellerBrokerageId})`.padEnd(22)}` +
            `${String(o.buyerBrokerageId).padEnd(7)}${time(o.deliverBy).padEnd(26)}${time(o.createdAt).padEnd(26)}${time(o.updatedAt)}` +
            (o.livemode ? '' : '  TEST'),
        );
      }
      io.out(page.next ? `${page.orders.length} order(s); older: --after ${page.next}` : `${page.orders.length} order(s), no older ones`);
      return 0;
    });
  },
};

/** The order's deadline and its two timers, as Postgres holds them (src/timers/). */
export function deadlineText(order: {
  inHandOn: string | null;
  deliverBy: Date | null;
  dueSoonAt: Date | null;
  dueSoonFiredAt: Date | null;
  overdueFiredAt: Date | null;
}): string {
  if (!order.deliverBy) return 'deadline: none (no in-hand date)';
  const timer = (at: Date | null, fired: Date | null) => `${time(at)} ${fired ? `fired ${time(fired)}` : 'not fired'}`;
  return (
    `deadline: in hand on ${order.inHandOn ?? '-'}, deliver by ${time(order.deliverBy)}; ` +
    `reminder ${timer(order.dueSoonAt, order.dueSoonFiredAt)}; overdue ${timer(order.deliverBy, order.overdueFiredAt)}`
  );
}

function printView(view: NonNullable<Awaited<ReturnType<typeof loadOrderView>>>, io: CliIo): void {
  const { order } = view;
  io.out(`order ${order.id} (${order.oid}): ${order.state}`);
  if (!order.livemode) {
    const c = view.clock;
    io.out(
      `  TEST MODE: ${c ? `test clock ${c.id}${c.name ? ` "${c.name}"` : ''} at ${time(c.frozenTime)} (${c.status})` : 'on the wall clock'}`,
    );
  }
  io.out(
    `  delivery ${order.delivery}, ${order.quantity} ticket(s); seller office ${order.sellerOfficeId}, buyer brokerage ${order.buyerBrokerageId}`,
  );
  io.out(
    `  created ${time(order.createdAt)}, accepted ${time(order.acceptedAt)}, completed ${time(order.completedAt)}, updated ${time(order.updatedAt)}`,
  );
  io.out(`  ${deadlineText(order)}`);
  if (order.rejectionReason) io.out(`  rejected: ${order.rejectionReason}${order.rejectionNotes ? ` (${order.rejectionNotes})` : ''}`);
  io.out('');
  io.out('shipment chain:');
  if (view.shipments.length === 0) io.out('  none yet');
  for (const s of view.shipments) {
    const fate = s.replacedBy === null ? 'live' : `replaced by #${s.replacedBy} at ${time(s.replacedAt)}`;
    io.out(`  #${s.id} ${s.type}/${s.state} (created ${time(s.createdAt)}, delivered ${time(s.deliveredAt)}) ${fate}`);
  }
  io.out('');
  io.out(`timeline (${view.events.length}):`);
  for (const e of view.events) {
    const from = e.fromType ? `${e.fromType}/${e.fromState}` : '-';
    io.out(
      `  ${String(e.seq).padEnd(4)}${time(e.at).padEnd(26)}${e.kind.padEnd(16)}${from} → ${e.toType ? `${e.toType}/${e.toState}` : '-'}  by ${actorText(e)}, command ${e.commandId ?? '-'}`,
    );
  }
  io.out('');
  io.out(`commands (${view.commands.length}):`);
  for (const c of view.commands) {
    const outcome = c.status === 'succeeded' ? `${c.status} ${c.resultStatus ?? ''}` : c.status;
    io.out(
      `  ${c.id} ${c.name.padEnd(18)}${outcome.padEnd(14)}attempts ${c.attempts}  sent ${time(c.createdAt)}  finished ${time(c.finishedAt)}${c.error ? `  ${c.error}` : ''}`,
    );
  }
  io.out('');
  printDeliveries(view.webhooks, io);
}

/** Each event of the order per endpoint: delivered, or still owed with how the last attempt went. */
function printDeliveries(deliveries: readonly OrderWebhookDelivery[], io: CliIo): void {
  io.out(`webhook deliveries (${deliveries.length}):`);
  if (deliveries.length === 0) io.out('  no endpoint was owed an event of this order');
  for (const d of deliveries) {
    const endpoint = `endpoint ${d.endpointId}${d.enabled ? '' : ' (disabled)'} ${d.url}`;
    const event = `${String(d.seq).padEnd(4)}${d.kind.padEnd(16)}`;
    const last = d.lastOutcome
      ? `; last ${d.lastOutcome}${d.lastStatus ? ` ${d.lastStatus}` : ''}${d.lastError ? `: ${d.lastError}` : ''}`
      : '';
    const fate = d.deliveredAt
      ? `delivered ${isoTime(d.deliveredAt)} (attempts ${d.attempts})`
      : `owed: attempts ${d.attempts}, next attempt ${isoTime(d.nextAttemptAt)}${last}`;
    io.out(`  ${event}${fate}  ${endpoint}`);
  }
}

export const ordersShow: CommandModule = {
  options: { json: { type: 'boolean' } },
  async run({ positionals, values }, io) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one order id');
    const id = intArg(positionals[0], 'order_id');
    return withCliDatabase(loadConfig(), async (database) => {
      const view = await loadOrderView(database.db, id);
      if (!view) {
        io.err(`no order ${id}`);
        return 1;
      }
      if (values.json) io.out(snakeJson(view));
      else printView(view, io);
      return 0;
    });
  },
};
