import type postgres from 'postgres';
import { sampleEvery, tally } from './sampler.ts';

/**
 * What Postgres's own views show during a timed phase of the scale bench: what its backends are
 * doing and waiting on (pg_stat_activity and ungranted pg_locks, sampled), which statements take
 * its time (pg_stat_statements), how it writes WAL (pg_stat_wal) and how far the outbox relay lags.
 */

export interface ActivityProfile {
  samples: number;
  /** `state · statement verb · wait` → mean backends of the bench database per sample. */
  backends: Map<string, number>;
  /** `locktype · mode` of ungranted locks → mean per sample. */
  lockWaits: Map<string, number>;
}

// The leading keyword of what an active backend runs (INSERT, COMMIT, ...); its wait, or CPU when none.
const ACTIVITY = `
select 'a' as kind, state, coalesce(wait_event_type || ':' || wait_event, 'CPU') as what,
  case when state = 'active' then upper(coalesce(substring(ltrim(query, E' \\n\\t(') from '^[A-Za-z]+'), '?')) else '' end as verb,
  count(*)::int as n
from pg_stat_activity
where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()
group by 2, 3, 4
union all
select 'l', locktype, mode, '', count(*)::int from pg_locks where not granted group by 2, 3`;

/** Samples pg_stat_activity and pg_locks every `ms` until stopped. */
export function sampleActivity(sql: postgres.Sql, database: string, ms = 50): { stop(): Promise<ActivityProfile> } {
  const backends = new Map<string, number>();
  const lockWaits = new Map<string, number>();
  const sampler = sampleEvery(ms, async () => {
    const rows = await sql.unsafe<Array<{ kind: string; state: string | null; what: string; verb: string; n: number }>>(ACTIVITY, [
      database,
    ]);
    for (const r of rows) {
      if (r.kind === 'l') tally(lockWaits, `${r.state} · ${r.what}`, r.n);
      else tally(backends, [r.state ?? 'unknown', r.verb, r.what].filter(Boolean).join(' · '), r.n);
    }
  });
  return {
    async stop() {
      const { ticks } = await sampler.stop();
      const mean = (m: Map<string, number>) => new Map([...m].map(([k, n]) => [k, n / Math.max(1, ticks)]));
      return { samples: ticks, backends: mean(backends), lockWaits: mean(lockWaits) };
    },
  };
}

export interface StatementStats {
  query: string;
  calls: number;
  ms: number;
  rows: number;
}

/** pg_stat_statements of one database by queryid; undefined where the extension is not loaded. */
export async function statementSnapshot(sql: postgres.Sql, database: string): Promise<Map<string, StatementStats> | undefined> {
  try {
    const rows = await sql<Array<StatementStats & { id: string }>>`
      select s.queryid::text as id, min(s.query) as query, sum(s.calls)::float8 as calls,
        sum(s.total_exec_time)::float8 as ms, sum(s.rows)::float8 as rows
      from pg_stat_statements s join pg_database d on d.oid = s.dbid
      where d.datname = ${database} group by s.queryid`;
    return new Map(rows.map((r) => [r.id, { query: r.query, calls: Number(r.calls), ms: Number(r.ms), rows: Number(r.rows) }]));
  } catch {
    return undefined;
  }
}

/** Per statement, what ran between two snapshots, most server time first. */
export function statementDelta(a: Map<string, StatementStats>, b: Map<string, StatementStats>): StatementStats[] {
  return [...b]
    .map(([id, s]) => {
      const before = a.get(id);
      return { query: s.query, calls: s.calls - (before?.calls ?? 0), ms: s.ms - (before?.ms ?? 0), rows: s.rows - (before?.rows ?? 0) };
    })
    .filter((s) => s.calls > 0)
    .sort((x, y) => y.ms - x.ms);
}

export interface WalSnapshot {
  records: number;
  fullPageImages: number;
  bytes: number;
  buffersFull: number;
  writes: number;
  syncs: number;
  commits: number;
  checkpoints?: number;
}

export async function walSnapshot(sql: postgres.Sql, database: string): Promise<WalSnapshot | undefined> {
  try {
    const [w] = await sql`
      select wal_records::float8 as records, wal_fpi::float8 as "fullPageImages", wal_bytes::float8 as bytes,
        wal_buffers_full::float8 as "buffersFull", wal_write::float8 as writes, wal_sync::float8 as syncs,
        (select xact_commit::float8 from pg_stat_database where datname = ${database}) as commits
      from pg_stat_wal`;
    let checkpoints: number | undefined;
    try {
      const [c] = await sql`select (checkpoints_timed + checkpoints_req)::float8 as n from pg_stat_bgwriter`;
      checkpoints = Number(c!.n);
    } catch {
      checkpoints = undefined; // moved to pg_stat_checkpointer in Postgres 17
    }
    const n = (k: string) => Number(w![k]);
    return {
      records: n('records'),
      fullPageImages: n('fullPageImages'),
      bytes: n('bytes'),
      buffersFull: n('buffersFull'),
      writes: n('writes'),
      syncs: n('syncs'),
      commits: n('commits'),
      ...(checkpoints === undefined ? {} : { checkpoints }),
    };
  } catch {
    return undefined;
  }
}

export interface OutboxProfile {
  samples: number;
  backlogMean: number;
  backlogMax: number;
  lagMeanMs: number;
  lagMaxMs: number;
}

/** Events waiting for the relay and the age of the oldest, every `ms` (what fulfil_outbox_relay_lag_seconds reads at a scrape). */
export function sampleOutbox(sql: postgres.Sql, ms = 250): { stop(): Promise<OutboxProfile> } {
  const backlog: number[] = [];
  const lag: number[] = [];
  const sampler = sampleEvery(ms, async () => {
    const [r] = await sql`
      select count(*)::int as n, coalesce(extract(epoch from now() - min(e.at)), 0)::float8 as age
      from event_feed f join shipment_events e on e.id = f.event_row_id where f.position is null`;
    backlog.push(Number(r!.n));
    lag.push(Number(r!.age) * 1000);
  });
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    async stop() {
      await sampler.stop();
      return {
        samples: backlog.length,
        backlogMean: mean(backlog),
        backlogMax: Math.max(0, ...backlog),
        lagMeanMs: mean(lag),
        lagMaxMs: Math.max(0, ...lag),
      };
    },
  };
}
