import { loadConfig } from '../../config.ts';
import { CredentialError, createCredential, listCredentials, revokeCredential } from '../../auth/credentials.ts';
import type { Database } from '../../db/client.ts';
import { secretBoxFor } from '../../service/database.ts';
import { withCliDatabase } from '../database.ts';
import { intArg, UsageError, type CommandModule } from '../command.ts';
import { isoTime } from '../../iso-time.ts';

async function withDatabase<T>(fn: (db: Database, config: ReturnType<typeof loadConfig>) => Promise<T>) {
  const config = loadConfig();
  return withCliDatabase(config, (database) => fn(database, config));
}

export const credentialsCreate: CommandModule = {
  options: { brokerage: { type: 'string' }, user: { type: 'string' }, test: { type: 'boolean' }, json: { type: 'boolean' } },
  async run({ values }, io) {
    const brokerageId = intArg(values.brokerage as string | undefined, '--brokerage');
    const userId = values.user === undefined ? undefined : intArg(values.user as string, '--user');
    const mode = values.test ? 'test' : 'live';
    return withDatabase(async (database, config) => {
      try {
        const c = await createCredential(database.db, secretBoxFor(config), { brokerageId, userId, mode });
        if (values.json)
          io.out(
            JSON.stringify({
              token: c.token,
              secret: c.secret,
              kind: c.kind,
              mode: c.mode,
              brokerage_id: brokerageId,
              ...(c.mode === 'test' ? { sandbox_brokerage_id: c.brokerageId } : {}),
              user_id: c.userId,
            }),
          );
        else
          io.out(
            `kind:   ${c.kind}\nmode:   ${c.mode}${c.mode === 'test' ? ` (acts for sandbox brokerage ${c.brokerageId}, the twin of ${brokerageId})` : ''}\n` +
              `token:  ${c.token}\nsecret: ${c.secret}\n(the secret is shown only now; store it safely)`,
          );
        return 0;
      } catch (err) {
        if (err instanceof CredentialError || /foreign key/i.test((err as Error).message)) {
          throw new UsageError(err instanceof CredentialError ? err.message : `brokerage ${brokerageId} does not exist`);
        }
        throw err;
      }
    });
  },
};

export const credentialsList: CommandModule = {
  options: { brokerage: { type: 'string' } },
  async run({ values }, io) {
    const brokerageId = values.brokerage === undefined ? undefined : intArg(values.brokerage as string, '--brokerage');
    return withDatabase(async (database) => {
      const rows = await listCredentials(database.db, brokerageId);
      io.out(['TOKEN'.padEnd(34) + 'KIND  MODE  BROKERAGE         USER    CREATED                   REVOKED'].join(''));
      for (const r of rows) {
        io.out(
          `${r.token.padEnd(34)}${r.kind.padEnd(6)}${r.mode.padEnd(6)}${String(r.brokerageId).padEnd(18)}${String(r.userId ?? '-').padEnd(8)}` +
            `${isoTime(r.createdAt).padEnd(26)}${r.revokedAt ? isoTime(r.revokedAt) : '-'}`,
        );
      }
      return 0;
    });
  },
};

export const credentialsRevoke: CommandModule = {
  async run({ positionals }, io) {
    const [token] = positionals;
    if (!token || positionals.length !== 1) throw new UsageError('expected exactly one token');
    return withDatabase(async (database) => {
      const done = await revokeCredential(database.db, token);
      io.out(done ? `revoked ${token}` : `no live credential ${token}`);
      return done ? 0 : 1;
    });
  },
};
