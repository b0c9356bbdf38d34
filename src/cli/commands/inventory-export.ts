import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../../config.ts';
import { offices } from '../../db/schema.ts';
import {
  DEFAULT_CURSOR,
  DEFAULT_MODE_MAX_ITEMS,
  DETAILED_MODE_MAX_ITEMS,
  type IndexQuery,
  type InventoryState,
} from '../../inventory/index-query.ts';
import { iterateInventory } from '../../inventory/read-inventory.ts';
import { openCliDatabase } from '../database.ts';
import { intArg, UsageError, type CommandModule } from '../command.ts';

const STATES: readonly string[] = ['ALL', 'MAPPED', 'UNMAPPED'];

export const inventoryExport: CommandModule = {
  options: { state: { type: 'string' }, detailed: { type: 'boolean' }, out: { type: 'string' } },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one office id');
    const officeId = intArg(positionals[0], 'office_id');
    const state = values.state as string | undefined;
    if (state !== undefined && !STATES.includes(state)) throw new UsageError('--state: expected ALL, MAPPED or UNMAPPED');
    if (values.detailed && state !== undefined && state !== 'MAPPED') {
      throw new UsageError('--detailed covers mapped records only: leave --state out or give MAPPED');
    }
    const query: IndexQuery = values.detailed
      ? { mode: 'detailed', officeId, state: 'MAPPED', cursor: DEFAULT_CURSOR, items: DETAILED_MODE_MAX_ITEMS }
      : { mode: 'default', officeId, state: (state ?? 'ALL') as InventoryState, cursor: DEFAULT_CURSOR, items: DEFAULT_MODE_MAX_ITEMS };

    const { database } = await openCliDatabase(loadConfig());
    try {
      const [office] = await database.db.select({ id: offices.id }).from(offices).where(eq(offices.id, officeId));
      if (!office) {
        io.err(`fulfil inventory export: office ${officeId} does not exist`);
        return 1;
      }
      const out: Writable = values.out ? createWriteStream(values.out as string) : process.stdout;
      let count = 0;
      for await (const rows of iterateInventory(database, query)) {
        // One write per page; waiting for 'drain' keeps at most about a page buffered.
        if (!out.write(rows.map((r) => `${r.json}\n`).join(''))) await once(out, 'drain');
        count += rows.length;
      }
      if (out !== process.stdout) {
        out.end();
        await finished(out);
      }
      io.err(`exported ${count} records of office ${officeId}${values.out ? ` to ${values.out}` : ''}`);
      return 0;
    } finally {
      await database.close();
    }
  },
};
