import { loadConfig } from '../../config.ts';
import { seedDatabase, type SeedCounts } from '../../db/seed.ts';
import { openMigratedDatabase, secretBoxFor } from '../../service.ts';
import { UsageError, type CliCommand } from '../command.ts';
import { readFixtureFile } from '../fixture-file.ts';

export function describeSeed(file: string, counts: SeedCounts): string {
  return `seeded ${file}: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')} (new credentials and orders only)`;
}

export const seed: CliCommand = {
  path: ['seed'],
  summary:
    'Loads a fixture document (format: docs/API.md §Fixture format) into the database; loading it again changes nothing.\n' +
    'With the embedded database, seed before `fulfil start` or use `fulfil start --seed <file>`.',
  usage: 'seed <file.json>',
  async run({ positionals }, io) {
    const [file] = positionals;
    if (!file || positionals.length > 1) throw new UsageError('expected exactly one fixture file');
    const fixture = await readFixtureFile(file);
    const config = loadConfig();
    const database = await openMigratedDatabase(config);
    try {
      io.out(describeSeed(file, await seedDatabase(database, fixture, secretBoxFor(config))));
      return 0;
    } finally {
      await database.close();
    }
  },
};
