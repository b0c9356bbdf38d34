import { loadConfig } from '../../config.ts';
import { openCliDatabase } from '../database.ts';
import type { CommandModule } from '../command.ts';

export const migrate: CommandModule = {
  async run(_args, io) {
    const config = loadConfig();
    const { database, borrowed } = await openCliDatabase(config);
    await database.close();
    io.out(borrowed ? 'migrations applied (by the running service, at its start)' : `migrations applied (${database.kind})`);
    return 0;
  },
};
