import { hostname } from 'node:os';
import postgres from 'postgres';
import type { Logger } from 'pino';
import { relayActiveGauge } from '../telemetry/metrics-registry.ts';
import { OutboxRelay, type RelayOptions } from './outbox-relay.ts';

/**
 * The session advisory lock the active relay holds. Any constant shared by every process of a
 * database; pg_locks shows a bigint key as classid (high 32 bits) and objid (low 32 bits).
 */
export const RELAY_LEADER_KEY = 7_245_301_979;
const KEY_HIGH = Math.floor(RELAY_LEADER_KEY / 2 ** 32);
const KEY_LOW = RELAY_LEADER_KEY % 2 ** 32;

const TRY_LEAD = `select pg_try_advisory_lock($1::bigint) as locked`;
const STILL_LEADING = `
select exists (
  select 1 from pg_locks
  where locktype = 'advisory' and pid = pg_backend_pid() and granted
    and classid = $1::int8::oid and objid = $2::int8::oid and objsubid = 1
) as held`;
const RESIGN = `select pg_advisory_unlock($1::bigint)`;

/** The application_name of a relay's lock connection: an operator (or a test) finds the active one in pg_stat_activity. */
export function leaderApplicationName(pid = process.pid): string {
  return `fulfil relay ${hostname().slice(0, 30)} ${pid}`;
}

export interface ActiveRelayOptions extends RelayOptions {
  /** Postgres URL; without one (embedded PGlite, a single process) this process always relays. */
  databaseUrl?: string | undefined;
  /** How often a standby asks for the lock and the active relay checks it still holds it. */
  checkMs: number;
  log: Logger;
}

/**
 * One active outbox relay per database, however many worker processes: the relay runs only while
 * this process holds a session advisory lock on a connection of its own. When the holder dies
 * its session ends (at once for a killed process; within the TCP keepalive below for a vanished
 * host), the lock goes with it, and a standby takes it on its next check. A holder whose lock
 * connection broke stops relaying at its next check; until then two relays may briefly run, which
 * is safe because each batch still takes the transaction-level lock (outbox-relay.ts), so batches
 * never interleave and per-order order holds.
 */
export class ActiveRelay {
  private readonly lockSql: postgres.Sql | undefined;
  private relay: OutboxRelay | undefined;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: ActiveRelayOptions) {
    this.lockSql = opts.databaseUrl
      ? postgres(opts.databaseUrl, {
          max: 1,
          // The lock lives as long as this one connection: never retire it on purpose.
          max_lifetime: null,
          idle_timeout: 0,
          connect_timeout: 5,
          keep_alive: 10,
          onnotice: () => {},
          connection: {
            application_name: leaderApplicationName(),
            statement_timeout: 5_000,
            // The server ends the session (and frees the lock) ~20 s after the host stops answering.
            tcp_keepalives_idle: 10,
            tcp_keepalives_interval: 3,
            tcp_keepalives_count: 3,
          },
        })
      : undefined;
  }

  get active(): boolean {
    return this.relay !== undefined;
  }

  /** This process committed events: true when the relay runs here and took the news (no NOTIFY needed). */
  nudge(): boolean {
    this.relay?.notified();
    return this.relay !== undefined;
  }

  async start(): Promise<void> {
    this.stopped = false;
    if (!this.lockSql) {
      await this.becomeActive();
      return;
    }
    await this.check();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.checking;
    const wasActive = this.active;
    await this.standDown();
    if (this.lockSql) {
      // Ending the session frees the lock anyway; unlocking first hands over without waiting.
      if (wasActive) await this.lockSql.unsafe(RESIGN, [RELAY_LEADER_KEY]).catch(() => {});
      await this.lockSql.end({ timeout: 2 });
    }
  }

  private check(): Promise<void> {
    this.checking = this.checkOnce().finally(() => {
      this.checking = undefined;
      if (!this.stopped) this.timer = setTimeout(() => void this.check(), this.opts.checkMs);
    });
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    const sql = this.lockSql!;
    try {
      if (this.relay) {
        const [row] = await sql.unsafe<Array<{ held: boolean }>>(STILL_LEADING, [KEY_HIGH, KEY_LOW]);
        if (!row?.held) {
          this.opts.log.warn('outbox relay lost its lock; standing by');
          await this.standDown();
        }
        return;
      }
      const [row] = await sql.unsafe<Array<{ locked: boolean }>>(TRY_LEAD, [RELAY_LEADER_KEY]);
      if (row?.locked && !this.stopped) await this.becomeActive();
    } catch (err) {
      // Whether the lock survives a broken connection is unknown: assume not, and ask again.
      if (this.relay) {
        this.opts.log.warn({ err }, 'outbox relay lock connection failed; standing by');
        await this.standDown();
      } else {
        this.opts.log.debug({ err }, 'outbox relay lock check failed');
      }
    }
  }

  private async becomeActive(): Promise<void> {
    const relay = new OutboxRelay(this.opts);
    this.relay = relay;
    await relay.start();
    relayActiveGauge.set(1);
    this.opts.log.info('outbox relay active in this process');
  }

  private async standDown(): Promise<void> {
    const relay = this.relay;
    this.relay = undefined;
    relayActiveGauge.set(0);
    await relay?.stop();
  }
}
