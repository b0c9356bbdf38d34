import type { IndexQuery, InventoryState } from './index-query.ts';

/**
 * SQL text of the inventory index, runnable as one simple-protocol message on postgres.js and
 * PGlite. It starts with `set local enable_sort = off`: the statements of one message share an
 * implicit transaction, so the setting holds for this query only. Without it the planner, whose
 * row estimates for "id is null and event_id is null" assume the two columns independent, may
 * pick a bitmap scan plus sort over every matching row of the office — a page whose cost grows
 * with the office. With sorting priced out, the only remaining plans walk an index in key order
 * from the cursor and stop after one page.
 *
 * The integers are inlined rather than bound because a simple-protocol message takes no
 * parameters; they come from parseIndexQuery and are checked again here.
 */
const PLANNER = 'set local enable_sort = off;\n';

// Each condition repeats the predicate of its partial index word for word, so the planner can
// prove the index applies (ticket_groups_mapped_by_remote / _unmapped_by_remote / _mapped_by_id).
const MAPPED = 'tg.id is not null and tg.event_id is not null';
const UNMAPPED = 'tg.id is null and tg.event_id is null';

function int(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`inventory SQL: ${n} is not a non-negative integer`);
  return String(n);
}

function stateCondition(state: InventoryState): string {
  return state === 'MAPPED' ? ` and ${MAPPED}` : state === 'UNMAPPED' ? ` and ${UNMAPPED}` : '';
}

/**
 * JSON text of one value, by kind. Records are written by concatenating these rather than with
 * row_to_json, which spends about twice as long on a page (docs/BENCHMARKS.md). Every piece is
 * total: SQL null becomes JSON null (or [] for the arrays), never a null that would void the record.
 */
const json = {
  /** Integers and booleans: their text is their JSON. */
  plain: (c: string) => `coalesce(${c}::text, 'null')`,
  /** Text, escaped by Postgres's own JSON encoder. */
  text: (c: string) => `coalesce(to_json(${c})::text, 'null')`,
  /** numeric(14,2) as a string with its two decimals ("125.00"); numeric output ignores locale. */
  decimal: (c: string) => `coalesce('"' || ${c}::text || '"', 'null')`,
  /** YYYY-MM-DD whatever the session's DateStyle. */
  date: (c: string) => `coalesce('"' || to_char(${c}, 'YYYY-MM-DD') || '"', 'null')`,
  /** ISO 8601 in UTC with milliseconds and Z, as JavaScript's toISOString writes it. */
  instant: (c: string) => `coalesce('"' || to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`,
  integers: (c: string) => `coalesce(to_json(${c})::text, '[]')`,
};

/** `{"name":value,…}` from [name, JSON expression] pairs; names are constants of this file. */
function object(fields: ReadonlyArray<readonly [string, string]>): string {
  return `${fields.map(([name, value], i) => `'${i === 0 ? '{' : ','}"${name}":' || ${value}`).join(' || ')} || '}'`;
}

const SEATS = `coalesce((select '[' || string_agg(${object([
  ['barcode', json.text('x.barcode')],
  ['primary_ticket_id', json.plain('x.primary_ticket_id')],
  ['seat', json.text('x.seat')],
  ['verification_id', json.text('x.verification_id')],
])}, ',' order by x.position) || ']' from seats x where x.ticket_group_pk = p.pk), '[]')`;

/** The detailed record, in the field order of docs/API.md §Inventory. */
const DETAILED = object([
  ['id', json.plain('p.id')],
  ['remote_id', json.plain('p.remote_id')],
  ['event_id', json.plain('p.event_id')],
  ['office_id', json.plain('p.office_id')],
  ['account_email', json.text('p.account_email')],
  ['cost', json.decimal('p.cost')],
  ['taxed_cost', json.decimal('p.taxed_cost')],
  ['price', json.decimal('p.price')],
  ['face_value', json.decimal('p.face_value')],
  ['discount', json.decimal('p.discount')],
  ['quantity', json.plain('p.quantity')],
  ['format', json.text('p.format')],
  ['type', json.text('p.type')],
  ['view_type', json.text('p.view_type')],
  ['section', json.text('p.section')],
  ['row', json.text('p.row')],
  ['seats', SEATS],
  ['split_type', json.text('p.split_type')],
  ['split_override', json.integers('p.split_override')],
  ['wheelchair_accessible', json.plain('p.wheelchair_accessible')],
  ['eticket', json.plain('p.eticket')],
  ['instant_delivery', json.plain('p.instant_delivery')],
  ['in_hand', json.plain('p.in_hand')],
  ['in_hand_on', json.date('p.in_hand_on')],
  ['external_notes', json.text('p.external_notes')],
  ['speculative', json.plain('p.speculative')],
  ['created_at', json.instant('p.created_at')],
  ['updated_at', json.instant('p.updated_at')],
]);

const DEFAULT = object([
  ['id', json.plain('p.id')],
  ['remote_id', json.plain('p.remote_id')],
  ['event_id', json.plain('p.event_id')],
]);

/**
 * How the records are ordered, in terms the index scan already delivers: (office_id, id) in
 * detailed mode. Asking for "k" alone there would let the planner (PG16+ presorts ordered
 * aggregates) prefer the global id index to avoid a sort.
 */
const order = (q: IndexQuery) => (q.mode === 'default' ? 't.k' : 't.o, t.k');

/**
 * The page's records, one row each: `k` the keyset column, `j` the record's JSON text. The LIMIT
 * sits inside, so the detailed mode aggregates seats for this page's rows only.
 */
function recordsSql(q: IndexQuery): string {
  const office = int(q.officeId);
  const cursor = int(q.cursor);
  const items = int(q.items);
  if (q.mode === 'default') {
    return `select p.remote_id as k, ${DEFAULT} as j
      from (select tg.id, tg.remote_id, tg.event_id from ticket_groups tg
            where tg.office_id = ${office} and tg.remote_id >= ${cursor}${stateCondition(q.state)}
            order by tg.remote_id limit ${items}) p`;
  }
  // office_id is bounded by a row comparison instead of "=": with an equality the planner may
  // serve "order by id" from the global unique index on id, walking every office's ids and
  // filtering; ordering by (office_id, id) without an equality only (office_id, id) can serve.
  return `select p.office_id as o, p.id as k, ${DETAILED} as j
    from (select tg.* from ticket_groups tg
          where (tg.office_id, tg.id) >= (${office}, ${cursor}) and tg.office_id <= ${office} and ${MAPPED}
          order by tg.office_id, tg.id limit ${items}) p`;
}

/** One row per record (`k`, `j`), in key order. For writers that emit a record at a time (export). */
export function inventoryRowsSql(q: IndexQuery): string {
  return `${PLANNER}select t.k, t.j from (${recordsSql(q)}) t order by ${order(q)}`;
}

/**
 * The whole response body as one text value, built by Postgres so Node neither parses nor
 * re-serialises the rows. Default mode: a bare array (I1); detailed: `{"inventory":[…]}` (D1).
 */
export function inventoryPageSql(q: IndexQuery): string {
  const [open, close] = q.mode === 'default' ? ['[', ']'] : ['{"inventory":[', ']}'];
  return `${PLANNER}select '${open}' || coalesce(string_agg(t.j, ',' order by ${order(q)}), '') || '${close}' as body
    from (${recordsSql(q)}) t`;
}
