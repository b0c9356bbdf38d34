import { loadConfig } from '../../config.ts';
import { openMigratedDatabase } from '../../service.ts';
import type { CliCommand } from '../command.ts';

export const migrate: CliCommand = {
  path: ['migrate'],
  summary: 'Applies pending database migrations (under an advisory lock; safe to run from several processes).',
  usage: 'migrate',
  async run(_args, io) {
    const config = loadConfig();
    const database = await openMigratedDatabase(config);
    await database.close();
    io.out(`migrations applied (${database.kind})`);
    return 0;
  },
};
