import { loadConfig } from '../../config.ts';
import { deadlinePolicyOf } from '../../domain/deadline-policy.ts';
import { createLogger } from '../../logger.ts';
import { installFatalHandlers } from '../../process-fatal.ts';
import { seedDatabase } from '../../domain/seed.ts';
import { armSeededTimers } from '../../timers/seed-timers.ts';
import { startService, type Roles } from '../../service.ts';
import { readFixtureFile } from '../fixture-file.ts';
import { describeSeed } from './seed.ts';
import { UsageError, type CommandModule } from '../command.ts';

const ROLES: Record<string, Roles> = {
  all: { api: true, worker: true },
  api: { api: true, worker: false },
  worker: { api: false, worker: true },
  webhooks: { api: false, worker: false, webhooks: true },
};

export const start: CommandModule = {
  options: { role: { type: 'string', default: 'all' }, seed: { type: 'string' } },
  async run({ values }) {
    const roles = ROLES[String(values.role)];
    if (!roles) throw new UsageError(`--role: expected all, api, worker or webhooks, got ${values.role}`);
    const config = loadConfig();
    const log = createLogger(config.LOG_LEVEL, { role: values.role });
    const uninstallFatal = installFatalHandlers(log);
    // Read before starting, so a bad fixture stops nothing half-started.
    const fixture = values.seed ? await readFixtureFile(String(values.seed)) : undefined;
    const service = await startService(config, roles, log);
    if (fixture) {
      const newOrders: number[] = [];
      const policy = deadlinePolicyOf(config);
      log.info(describeSeed(String(values.seed), await seedDatabase(service.database, fixture, service.secretBox, policy, { newOrders })));
      log.info(await armSeededTimers({ ...config, REDIS_URL: service.redis.url }, service.database, newOrders));
    }
    log.info({ url: service.url, role: values.role }, 'fulfil started');
    await new Promise<void>((resolve) => {
      let stopping = false;
      const onSignal = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, 'shutting down');
        // A second signal while stopping means the operator wants out now.
        process.once(signal, () => process.exit(130));
        service.stop().then(resolve, (err) => {
          log.error({ err }, 'shutdown failed');
          resolve();
        });
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      // The terminal closing: the private redis-server, in a process group of its own, is not
      // told, so the service stops it as on Ctrl-C.
      process.once('SIGHUP', onSignal);
    });
    log.info('stopped');
    uninstallFatal();
    // Every step is closed; a handle a library left open (a reconnect timer, a keep-alive socket)
    // must not keep a stopped service alive for its supervisor to wait on. Unref'd: a clean exit
    // does not wait for it.
    setTimeout(() => process.exit(0), 1_000).unref();
    return 0;
  },
};
