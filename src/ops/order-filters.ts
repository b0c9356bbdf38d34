import { sql, type SQL } from 'drizzle-orm';
import { ORDER_STATES, SHIPMENT_STATES, SHIPMENT_TYPES } from '../db/schema.ts';
import { InvalidParams } from '@fulfil/contract';

/**
 * One filter of the operators' order search, as `/ops/orders?<name>=` and `fulfil orders list
 * --<name with dashes>` take it: how its text is read, and the condition it adds on `o` (orders).
 * A new filter is one more entry in ORDER_FILTERS; the page's form, the CLI's flags and its help
 * are made from this list.
 */
export interface OrderFilter {
  name: string;
  help: string;
  /** The values the page offers in a select (anything else is refused); a free text field without. */
  choices?: readonly string[];
  /** A flag with no value on the CLI (`--overdue`); its one choice is the value it stands for. */
  flag?: true;
  /** The value a search without this filter uses (the page's select offers no blank "any"). */
  defaultValue?: string;
  where(value: string): SQL;
}

const positiveId = (name: string) => (raw: string) => {
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < 1)
    throw new InvalidParams(`${name}: expected a positive integer id`, name);
  return Number(raw);
};

const instant = (name: string) => (raw: string) => {
  // A bare date means its start, in UTC; anything else must carry its zone (no guessing).
  const text = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw;
  const ms = /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw new InvalidParams(`${name}: expected a date (2026-11-23) or an ISO 8601 time with its zone`, name);
  return new Date(ms).toISOString();
};

const oneOf = (name: string, choices: readonly string[]) => (raw: string) => {
  if (!choices.includes(raw)) throw new InvalidParams(`${name}: one of ${choices.join(', ')}`, name);
  return raw;
};

const DURATION = /^(\d{1,6})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

const duration = (name: string) => (raw: string) => {
  const m = DURATION.exec(raw);
  if (!m) throw new InvalidParams(`${name}: expected a duration such as 90m, 24h or 7d`, name);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
};

// Open orders with a deadline: one range of the partial index orders_open_deliver_by_idx.
const OPEN_WITH_DEADLINE = sql`o.state in ('pending', 'accepted', 'cancel_proposed') and o.deliver_by is not null`;

// The order's time: its test clock's where it lives at one (only test orders do), else the wall's.
const ORDER_NOW = sql`coalesce((select c.frozen_time from test_clocks c where c.id = o.test_clock_id), now())`;

/** Live orders unless asked otherwise (DECISIONS D-202): the queues are for real trouble. */
export const ORDER_MODES = ['live', 'test', 'all'] as const;

/** Command statuses that are not done: still to run, or given up after every attempt. */
const COMMAND_FILTERS = { unfinished: ['queued', 'running'], failed: ['failed'] } as const;

/**
 * Orders a set of commands touch: by the order id in its payload (accept) or by the shipment id
 * (update, complete). Only commands whose status is not `succeeded` are ever asked for, and the
 * partial index commands_open_idx keeps that set small however large the table grows.
 */
function ordersWithCommands(statuses: readonly string[]): SQL {
  const list = sql.join(
    statuses.map((s) => sql`${s}`),
    sql`, `,
  );
  return sql`o.id in (
    select (c.payload->>'order_id')::bigint from commands c
      where c.status <> 'succeeded' and c.status in (${list}) and c.payload ? 'order_id'
    union
    select s.order_id from commands c join shipments s on s.id = (c.payload->>'shipment_id')::bigint
      where c.status <> 'succeeded' and c.status in (${list}) and c.payload ? 'shipment_id')`;
}

export const ORDER_FILTERS: readonly OrderFilter[] = [
  {
    name: 'mode',
    help: 'live (the default), test (test-mode orders of the sandbox) or all',
    choices: ORDER_MODES,
    defaultValue: 'live',
    where: (v) => {
      const mode = oneOf('mode', ORDER_MODES)(v);
      return mode === 'all' ? sql`true` : sql`o.livemode = ${mode === 'live'}`;
    },
  },
  {
    name: 'state',
    help: `order state: ${ORDER_STATES.join(', ')}`,
    choices: ORDER_STATES,
    where: (v) => sql`o.state = ${oneOf('state', ORDER_STATES)(v)}`,
  },
  {
    name: 'shipment_type',
    help: `type of the live shipment: ${SHIPMENT_TYPES.join(', ')}`,
    choices: SHIPMENT_TYPES,
    where: (v) =>
      sql`exists (select 1 from shipments s where s.order_id = o.id and s.replaced_by is null and s.type = ${oneOf('shipment_type', SHIPMENT_TYPES)(v)})`,
  },
  {
    name: 'shipment_state',
    help: `state of the live shipment: ${SHIPMENT_STATES.join(', ')} (mailed: in_transit, exception, returned)`,
    choices: SHIPMENT_STATES,
    where: (v) =>
      sql`exists (select 1 from shipments s where s.order_id = o.id and s.replaced_by is null and s.state = ${oneOf('shipment_state', SHIPMENT_STATES)(v)})`,
  },
  {
    name: 'seller_brokerage',
    help: 'brokerage id of the seller (any of its offices)',
    where: (v) => sql`o.seller_office_id in (select id from offices where brokerage_id = ${positiveId('seller_brokerage')(v)})`,
  },
  { name: 'seller_office', help: 'office id of the seller', where: (v) => sql`o.seller_office_id = ${positiveId('seller_office')(v)}` },
  {
    name: 'buyer_brokerage',
    help: 'brokerage id of the buyer',
    where: (v) => sql`o.buyer_brokerage_id = ${positiveId('buyer_brokerage')(v)}`,
  },
  {
    name: 'created_after',
    help: 'created at or after (date or ISO time)',
    where: (v) => sql`o.created_at >= ${instant('created_after')(v)}::timestamptz`,
  },
  {
    name: 'created_before',
    help: 'created before (date or ISO time)',
    where: (v) => sql`o.created_at < ${instant('created_before')(v)}::timestamptz`,
  },
  {
    name: 'updated_after',
    help: 'last changed at or after (date or ISO time)',
    where: (v) => sql`o.updated_at >= ${instant('updated_after')(v)}::timestamptz`,
  },
  {
    name: 'updated_before',
    help: 'last changed before (date or ISO time)',
    // An order changes only after it was created, so the bound holds for created_at too, and a
    // page then starts in the (created_at, id) index where matches can be, not at the newest order.
    where: (v) => {
      const t = instant('updated_before')(v);
      return sql`o.updated_at < ${t}::timestamptz and o.created_at < ${t}::timestamptz`;
    },
  },
  {
    name: 'overdue',
    help: 'open (pending, accepted, cancel_proposed) and past its deadline (deliver_by)',
    choices: ['yes'],
    flag: true,
    where: (v) => {
      oneOf('overdue', ['yes'])(v);
      return sql`${OPEN_WITH_DEADLINE} and o.deliver_by < ${ORDER_NOW}`;
    },
  },
  {
    name: 'due_within',
    help: 'open, not yet overdue, and due within this long (90m, 24h, 7d)',
    where: (v) => {
      const ms = duration('due_within')(v);
      return sql`${OPEN_WITH_DEADLINE} and o.deliver_by >= ${ORDER_NOW} and o.deliver_by < ${ORDER_NOW} + ${`${ms} milliseconds`}::interval`;
    },
  },
  {
    name: 'command',
    help: 'has a command that is unfinished (queued or running) or failed (gave up after every attempt)',
    choices: Object.keys(COMMAND_FILTERS),
    where: (v) => ordersWithCommands(COMMAND_FILTERS[oneOf('command', Object.keys(COMMAND_FILTERS))(v) as keyof typeof COMMAND_FILTERS]),
  },
  {
    name: 'webhook',
    help: 'has a webhook delivery not yet acknowledged by its endpoint',
    choices: ['undelivered'],
    // Bounded by the undelivered deliveries (partial index webhook_deliveries_pending_idx).
    where: (v) => {
      oneOf('webhook', ['undelivered'])(v);
      return sql`o.id in (select d.order_id from webhook_deliveries d where d.delivered_at is null and d.order_id is not null)`;
    },
  },
];

/** The filters given (empty values are no filter), checked; unknown names are refused so a typo never widens a search. */
export function filterConditions(given: Record<string, string | undefined>, allowed: ReadonlySet<string>): SQL[] {
  const known = new Set(ORDER_FILTERS.map((f) => f.name));
  // Every bad filter at once: the page lists them all, not the first.
  const problems: { message: string; field: string }[] = [];
  for (const [name, value] of Object.entries(given)) {
    if (!known.has(name) && !allowed.has(name)) problems.push({ message: `${name}: unknown filter`, field: name });
    else if (value !== undefined && typeof value !== 'string') problems.push({ message: `${name}: given more than once`, field: name });
  }
  const conditions = ORDER_FILTERS.flatMap((f) => {
    const raw = given[f.name];
    const value = typeof raw === 'string' && raw.trim() ? raw : f.defaultValue;
    if (typeof value !== 'string' || !value.trim()) return [];
    try {
      return [f.where(value.trim())];
    } catch (err) {
      if (!(err instanceof InvalidParams)) throw err;
      problems.push({ message: err.message, field: err.field ?? f.name });
      return [];
    }
  });
  if (problems.length > 0) throw InvalidParams.of(problems);
  return conditions;
}
