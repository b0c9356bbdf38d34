import { loadConfig } from '../../config.ts';
import { deadlinePolicyOf } from '../../domain/deadline-policy.ts';
import { seedDatabase, type SeedCounts } from '../../domain/seed.ts';
import { secretBoxFor } from '../../service/database.ts';
import { armSeededTimers } from '../../timers/seed-timers.ts';
import { openCliDatabase } from '../database.ts';
import { UsageError, type CommandModule } from '../command.ts';
import { readFixtureFile } from '../fixture-file.ts';

export function describeSeed(file: string, counts: SeedCounts): string {
  return `seeded ${file}: ${Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')} (new credentials and orders only)`;
}

export const seed: CommandModule = {
  async run({ positionals }, io) {
    const [file] = positionals;
    if (!file || positionals.length > 1) throw new UsageError('expected exactly one fixture file');
    const fixture = await readFixtureFile(file);
    const config = loadConfig();
    const { database } = await openCliDatabase(config);
    try {
      const newOrders: number[] = [];
      io.out(describeSeed(file, await seedDatabase(database, fixture, secretBoxFor(config), deadlinePolicyOf(config), { newOrders })));
      io.out(await armSeededTimers(config, database, newOrders));
      return 0;
    } finally {
      await database.close();
    }
  },
};
