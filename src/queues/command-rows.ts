import type { SqlRunner } from '../db/client.ts';
import { isInfrastructureError } from '../infrastructure-errors.ts';
import { insertCommand, insertCommands, type NewCommand } from '../db/sql/insert-command.ts';

/** The most rows one statement carries (a row's payload can be up to the 64 KiB of a body). */
const MOST_PER_STATEMENT = 64;

interface Waiting {
  row: NewCommand;
  resolve: (inserted: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Records the commands rows of the requests an API process takes in one event-loop turn with one
 * statement (group commit): under load a turn carries several (docs/BENCHMARKS.md), and each row
 * alone cost a statement, a round trip on a connection of its own and a commit. A row waits at
 * most for the turn to end. Should the statement be refused, each row is tried alone, so one
 * request's bad value (text Postgres cannot store) fails only that request; Postgres away fails
 * them all at once. A command id twice in one turn
 * (the same Idempotency-Key sent twice at once) is new for the first only, as it would be one
 * after the other. D-098.
 */
export class CommandRows {
  private waiting: Waiting[] = [];

  constructor(private readonly database: SqlRunner) {}

  /** Resolves true when the row is new, false when its id (or key) was taken already. */
  insert(row: NewCommand): Promise<boolean> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ row, resolve, reject });
    });
  }

  private flush(): void {
    const all = this.waiting;
    this.waiting = [];
    for (let i = 0; i < all.length; i += MOST_PER_STATEMENT) void this.record(all.slice(i, i + MOST_PER_STATEMENT));
  }

  private async record(batch: Waiting[]): Promise<void> {
    const first = new Map<string, Waiting>();
    const repeated: Waiting[] = [];
    for (const w of batch) {
      if (first.has(w.row.id)) repeated.push(w);
      else first.set(w.row.id, w);
    }
    try {
      if (first.size === 1) {
        const [w] = first.values();
        w!.resolve(await insertCommand(this.database, w!.row));
      } else {
        const inserted = await insertCommands(
          this.database,
          [...first.values()].map((w) => w.row),
        );
        for (const [id, w] of first) w.resolve(inserted.has(id));
      }
    } catch (err) {
      // Postgres away or stuck: each row alone would only fail again, later.
      if (first.size === 1 || isInfrastructureError(err)) for (const w of first.values()) w.reject(err);
      else await Promise.all([...first.values()].map((w) => insertCommand(this.database, w.row).then(w.resolve, w.reject)));
    }
    // Behind the first: its row exists now (or its insert failed, and this one's will tell).
    for (const w of repeated) insertCommand(this.database, w.row).then(w.resolve, w.reject);
  }
}
