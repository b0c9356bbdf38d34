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

// Millisecond precision, as JavaScript's toISOString writes it; independent of the session TimeZone.
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * How the records are ordered, in terms the index scan already delivers: (office_id, id) in
 * detailed mode. Asking for "k" alone there would let the planner (PG16+ presorts ordered
 * aggregates) prefer the global id index to avoid a sort.
 */
const order = (q: IndexQuery) => (q.mode === 'default' ? 't.k' : 't.o, t.k');

/**
 * The page's records, one row each: `k` the keyset column, `j` the record's JSON text. The LIMIT
 * sits inside, so the detailed mode aggregates seats for this page's rows only. Columns are in
 * the seed's field order; row_to_json keeps that order and writes no spaces.
 */
function recordsSql(q: IndexQuery): string {
  const office = int(q.officeId);
  const cursor = int(q.cursor);
  const items = int(q.items);
  if (q.mode === 'default') {
    return `select r.remote_id as k, row_to_json(r)::text as j
      from (select tg.id, tg.remote_id, tg.event_id from ticket_groups tg
            where tg.office_id = ${office} and tg.remote_id >= ${cursor}${stateCondition(q.state)}
            order by tg.remote_id limit ${items}) r`;
  }
  // office_id is bounded by a row comparison instead of "=": with an equality the planner may
  // serve "order by id" from the global unique index on id, walking every office's ids and
  // filtering; ordering by (office_id, id) without an equality only (office_id, id) can serve.
  return `select p.office_id as o, p.id as k, row_to_json(r)::text as j
    from (select tg.* from ticket_groups tg
          where (tg.office_id, tg.id) >= (${office}, ${cursor}) and tg.office_id <= ${office} and ${MAPPED}
          order by tg.office_id, tg.id limit ${items}) p
    cross join lateral (
      select p.id, p.remote_id, p.event_id, p.office_id, p.account_email,
        p.cost::text as cost, p.taxed_cost::text as taxed_cost, p.price::text as price,
        p.face_value::text as face_value, p.discount::text as discount,
        p.quantity, p.format, p.type, p.view_type, p.section, p.row,
        coalesce((select ('[' || string_agg(row_to_json(v)::text, ',' order by x.position) || ']')::json
                  from seats x
                  cross join lateral (select x.barcode, x.primary_ticket_id, x.seat, x.verification_id) v
                  where x.ticket_group_pk = p.pk), '[]'::json) as seats,
        p.split_type, coalesce(p.split_override, '{}') as split_override,
        p.wheelchair_accessible, p.eticket, p.instant_delivery, p.in_hand,
        p.in_hand_on::text as in_hand_on, p.external_notes, p.speculative,
        ${iso('p.created_at')} as created_at, ${iso('p.updated_at')} as updated_at
    ) r`;
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
