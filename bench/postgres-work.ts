import { readFileSync, readdirSync } from 'node:fs';
import type postgres from 'postgres';

/**
 * What Postgres did between two snapshots: statements and their server time (pg_stat_statements,
 * when the server loads it), transactions, WAL bytes (pg_current_wal_lsn), rows written, and the
 * CPU time of the server's processes (from /proc, when the server runs on this machine).
 */
export interface PgSnapshot {
  at: number;
  wal: string;
  xacts: number;
  tuples: number;
  statements?: { calls: number; execMs: number; lockMs: number };
  cpuMs?: number;
}

export async function pgSnapshot(admin: postgres.Sql, database: string, postmasterPid?: number): Promise<PgSnapshot> {
  const [db] = await admin`
    select xact_commit + xact_rollback as xacts, tup_inserted + tup_updated + tup_deleted as tuples
    from pg_stat_database where datname = ${database}`;
  const [{ wal }] = (await admin`select pg_current_wal_lsn()::text as wal`) as unknown as [{ wal: string }];
  let statements: PgSnapshot['statements'];
  try {
    const [s] = await admin`
      select coalesce(sum(calls), 0)::float8 as calls, coalesce(sum(total_exec_time), 0)::float8 as "execMs",
        coalesce(sum(total_exec_time) filter (where query like '%for update of o%'), 0)::float8 as "lockMs"
      from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = ${database}`;
    statements = { calls: Number(s!.calls), execMs: Number(s!.execMs), lockMs: Number(s!.lockMs) };
  } catch {
    statements = undefined; // pg_stat_statements not loaded
  }
  return {
    at: performance.now(),
    wal: String(wal),
    xacts: Number(db!.xacts),
    tuples: Number(db!.tuples),
    ...(statements ? { statements } : {}),
    ...(postmasterPid ? { cpuMs: processTreeCpuMs(postmasterPid) } : {}),
  };
}

export interface PgWork {
  statementsPerCommand?: number;
  serverExecMsPerCommand?: number;
  /** Time in the statement that takes the order's row lock, waiting included. */
  lockStatementMsPerCommand?: number;
  xactsPerCommand: number;
  walBytesPerCommand: number;
  tuplesPerCommand: number;
  cpuMsPerCommand?: number;
  /** Share of one core the server used during the run. */
  cpuCores?: number;
}

export async function pgWork(admin: postgres.Sql, a: PgSnapshot, b: PgSnapshot, commands: number): Promise<PgWork> {
  const [{ bytes }] = (await admin`select pg_wal_lsn_diff(${b.wal}::pg_lsn, ${a.wal}::pg_lsn)::float8 as bytes`) as unknown as [
    { bytes: number },
  ];
  const seconds = (b.at - a.at) / 1000;
  return {
    ...(a.statements && b.statements
      ? {
          statementsPerCommand: (b.statements.calls - a.statements.calls) / commands,
          serverExecMsPerCommand: (b.statements.execMs - a.statements.execMs) / commands,
          lockStatementMsPerCommand: (b.statements.lockMs - a.statements.lockMs) / commands,
        }
      : {}),
    xactsPerCommand: (b.xacts - a.xacts) / commands,
    walBytesPerCommand: Number(bytes) / commands,
    tuplesPerCommand: (b.tuples - a.tuples) / commands,
    ...(a.cpuMs !== undefined && b.cpuMs !== undefined
      ? { cpuMsPerCommand: (b.cpuMs - a.cpuMs) / commands, cpuCores: (b.cpuMs - a.cpuMs) / 1000 / seconds }
      : {}),
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime of a process and all its children, in ms (Linux /proc). */
export function processTreeCpuMs(rootPid: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      if (Number(entry) !== rootPid && ppid !== rootPid) continue;
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** WAL of a run by relation and record type (pg_walinspect), per command: where its bytes go. */
export interface WalShare {
  relation: string;
  records: string;
  recordsPerCommand: number;
  bytesPerCommand: number;
  fpiBytesPerCommand: number;
}

/**
 * Reads every WAL record between two snapshots with pg_walinspect (Postgres 15+, created here
 * when missing) and sums them by the relation of their first block (or the resource manager for
 * records without one: commits, running xacts), naming relations through `databaseUrl`'s catalog.
 */
export async function walByRelation(
  admin: postgres.Sql,
  databaseUrl: string,
  a: PgSnapshot,
  b: PgSnapshot,
  commands: number,
): Promise<WalShare[]> {
  await admin`create extension if not exists pg_walinspect`;
  const rows = await admin`
    select substring(block_ref from 'rel \\d+/\\d+/(\\d+)') as relfilenode, resource_manager as rm, record_type as type,
      count(*)::float8 as records, sum(record_length)::float8 as bytes, sum(fpi_length)::float8 as fpi
    from pg_get_wal_records_info(${a.wal}::pg_lsn, ${b.wal}::pg_lsn)
    group by 1, 2, 3`;
  const { default: postgresClient } = await import('postgres');
  const db = postgresClient(databaseUrl, { max: 1, onnotice: () => {} });
  const names = new Map<string, string>();
  try {
    for (const r of await db`select relfilenode::text as node, relname from pg_class where relfilenode <> 0`)
      names.set(String(r.node), String(r.relname));
  } finally {
    await db.end();
  }
  const byRelation = new Map<string, { types: Map<string, number>; records: number; bytes: number; fpi: number }>();
  for (const r of rows) {
    const relation = r.relfilenode ? (names.get(String(r.relfilenode)) ?? `relfilenode ${r.relfilenode}`) : `(${r.rm})`;
    const entry = byRelation.get(relation) ?? { types: new Map(), records: 0, bytes: 0, fpi: 0 };
    const type = `${r.rm}/${r.type}`;
    entry.types.set(type, (entry.types.get(type) ?? 0) + Number(r.records));
    entry.records += Number(r.records);
    entry.bytes += Number(r.bytes);
    entry.fpi += Number(r.fpi);
    byRelation.set(relation, entry);
  }
  return [...byRelation]
    .map(([relation, e]) => ({
      relation,
      records: [...e.types]
        .sort((x, y) => y[1] - x[1])
        .map(([t, n]) => `${t} ${(n / commands).toFixed(2)}`)
        .join(', '),
      recordsPerCommand: e.records / commands,
      bytesPerCommand: e.bytes / commands,
      fpiBytesPerCommand: e.fpi / commands,
    }))
    .sort((x, y) => y.bytesPerCommand - x.bytesPerCommand);
}
