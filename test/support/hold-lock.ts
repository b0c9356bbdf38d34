import type postgres from 'postgres';
import { openDatabase, type Database } from '../../src/db/client.ts';

/**
 * A connection of the test's own that runs `statement` in a transaction and holds what it locked
 * until released: a slow or stuck transaction, as another client's would be. A transaction ended
 * by Postgres itself (a restart) ends the hold too.
 */
export async function holdLock(
  databaseUrl: string,
  statement: string,
  params: postgres.ParameterOrJSON<never>[] = [],
): Promise<{ release(): Promise<void> }> {
  const holder: Database = await openDatabase({ databaseUrl, maxConnections: 1 });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const done = holder.sql!.begin(async (tx) => {
    await tx.unsafe(statement, params);
    locked();
    await released;
  });
  const ended = done.catch(() => {}).finally(() => locked());
  await isLocked;
  return {
    async release() {
      release();
      await ended;
      await holder.close().catch(() => {});
    },
  };
}
