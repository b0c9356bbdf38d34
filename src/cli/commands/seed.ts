import { readFile } from 'node:fs/promises';
import { loadConfig } from '../../config.ts';
import { fixtureSchema } from '../../domain/fixture.ts';
import { seedDatabase } from '../../db/seed.ts';
import { openMigratedDatabase, secretBoxFor } from '../../service.ts';
import { UsageError, type CliCommand } from '../command.ts';

export const seed: CliCommand = {
  path: ['seed'],
  summary: 'Loads a fixture document (SPEC §8 format) into the database; loading it again changes nothing.',
  usage: 'seed <file.json>',
  async run({ positionals }, io) {
    const [file] = positionals;
    if (!file || positionals.length > 1) throw new UsageError('expected exactly one fixture file');
    const parsed = fixtureSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!parsed.success) {
      for (const issue of parsed.error.issues) io.err(`${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      return 1;
    }
    const config = loadConfig();
    const database = await openMigratedDatabase(config);
    try {
      const counts = await seedDatabase(database, parsed.data, secretBoxFor(config));
      io.out(`seeded ${file}: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')} (new credentials and orders only)`);
      return 0;
    } finally {
      await database.close();
    }
  },
};
