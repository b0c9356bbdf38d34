import { existsSync, statSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { CommandDispatcher } from '../../queues/dispatcher.ts';
import { loadConfig } from '../../config.ts';
import { offices } from '../../db/schema.ts';
import { MAX_INVENTORY_BATCH, inventoryPlace, requestFingerprint } from '@fulfil/contract';
import { readJsonlRecords } from '../../inventory/jsonl-records.ts';
import type { TicketGroupInput, Actor, CommandResult } from '@fulfil/contract';
import { CommandQueues, CommandWaiters } from '@fulfil/client/transport';
import { blockingConnection, producerConnection, type RedisConnection } from '@fulfil/client/transport';
import { requireWorkers, serviceQueues } from '../service-queues.ts';
import { openCliDatabase } from '../database.ts';
import { EXIT_NOT_ANSWERED, intArg, UsageError, type CommandModule, type CliIo } from '../command.ts';
import { Progress } from '../progress.ts';

/** Bad lines listed before the rest are only counted. */
const MAX_REPORTED = 100;

export const inventoryImport: CommandModule = {
  options: {
    batch: { type: 'string', default: String(MAX_INVENTORY_BATCH) },
    wait: { type: 'string', default: '30' },
    base: { type: 'string' },
  },
  async run({ values, positionals }, io) {
    if (positionals.length !== 2) throw new UsageError('expected an office id and a file');
    const officeId = intArg(positionals[0], 'office_id');
    const file = positionals[1]!;
    const batchSize = intArg(values.batch as string, '--batch');
    if (batchSize < 1 || batchSize > MAX_INVENTORY_BATCH) throw new UsageError(`--batch: must be 1 to ${MAX_INVENTORY_BATCH}`);
    if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`${file}: no such file`);
    const waitMs = intArg(values.wait as string, '--wait') * 1000;

    const records = await checkFile(file, officeId, io);
    if (records === undefined) return 1;
    if (records === 0) {
      io.out(`${file}: no records; nothing to import`);
      return 0;
    }

    const config = loadConfig();
    // The workers of a running service do the writes; with the embedded database the CLI borrows it from the service.
    const closers: Array<() => Promise<unknown>> = [];
    try {
      // The service first (D-160): batches for nobody are refused before anything is written.
      const redis = await serviceQueues(config, values.base as string | undefined);
      await requireWorkers(redis, [inventoryPlace(redis.prefix)]);
      const { database } = await openCliDatabase(config);
      closers.push(() => database.close());
      const [office] = await database.db.select({ brokerageId: offices.brokerageId }).from(offices).where(eq(offices.id, officeId));
      if (!office) {
        io.err(`fulfil inventory import: office ${officeId} does not exist`);
        return 1;
      }
      const connections: RedisConnection[] = [];
      closers.push(async () => connections.forEach((c) => c.disconnect()));
      const connect = (make: () => RedisConnection) => {
        const c = make();
        connections.push(c);
        return c;
      };
      const queues = new CommandQueues({
        prefix: redis.prefix,
        connection: connect(() => producerConnection(redis.url, { enableOfflineQueue: true })),
      });
      const waiters = new CommandWaiters([inventoryPlace(redis.prefix)], {
        connection: () => connect(() => blockingConnection(redis.url)),
      });
      closers.push(async () => {
        await waiters.close();
        await queues.close();
      });
      await waiters.ready();
      const log = { error: (_detail: object, message: string) => io.err(`fulfil inventory import: ${message}`) };
      const dispatcher = new CommandDispatcher({ database, queues, waiters, waitMs, log });
      const actor: Actor = { brokerageId: office.brokerageId, userId: null, via: 'upstream' };
      return await sendBatches({ file, officeId, batchSize, records, actor, dispatcher, waitMs, source: redis.source }, io);
    } finally {
      // The import's outcome is decided; a connection that fails to close goes with the process.
      for (const close of closers.reverse()) await close().catch(() => {});
    }
  },
};

/** Pass one: every line checked, nothing sent. Returns the number of records, or undefined when any line is bad. */
async function checkFile(file: string, officeId: number, io: CliIo): Promise<number | undefined> {
  let records = 0;
  let bad = 0;
  for await (const item of readJsonlRecords(file, officeId)) {
    if ('record' in item) {
      records++;
      continue;
    }
    bad++;
    if (bad <= MAX_REPORTED) io.err(`${file}:${item.line}: ${item.problem}`);
  }
  if (bad === 0) return records;
  if (bad > MAX_REPORTED) io.err(`… and ${bad - MAX_REPORTED} more bad lines`);
  io.err(`fulfil inventory import: ${bad} bad line${bad > 1 ? 's' : ''} in ${file}; nothing was sent`);
  return undefined;
}

interface SendPlan {
  file: string;
  officeId: number;
  batchSize: number;
  records: number;
  actor: Actor;
  dispatcher: CommandDispatcher;
  waitMs: number;
  /** Where the batches went, in words (`DATA_DIR/service.json`, `--base …`). */
  source: string;
}

/** A batch queued but not answered within --wait: the import stops there and exits 3 (D-177). */
class NotAnswered {
  constructor(readonly text: string) {}
}

/** Pass two: batches sent one after the other, each waited for, so the file's order holds. */
async function sendBatches(plan: SendPlan, io: CliIo): Promise<number> {
  const progress = new Progress(plan.records, 'records');
  let batch: TicketGroupInput[] = [];
  let lines: number[] = [];
  const remoteIds = new Set<number>();
  const ids = new Set<number>();
  let sent = 0;
  let batches = 0;

  const flush = async (): Promise<string | NotAnswered | undefined> => {
    if (batch.length === 0) return undefined;
    batches++;
    const result = await send(plan, batches, batch);
    if (result instanceof NotAnswered) return result;
    if (result.status !== 200) return describeRejection(plan.file, result, lines, batches, sent);
    sent += batch.length;
    progress.update(sent, `batch ${batches} (lines ${lines[0]}–${lines[lines.length - 1]}) upserted`);
    batch = [];
    lines = [];
    remoteIds.clear();
    ids.clear();
    return undefined;
  };

  for await (const item of readJsonlRecords(plan.file, plan.officeId)) {
    if ('problem' in item) {
      progress.done();
      io.err(`${plan.file}:${item.line}: ${item.problem} (the file changed while importing); stopped`);
      return 1;
    }
    const r = item.record;
    // A batch holds each remote_id and service id once; a repeat starts the next batch, so the
    // later line wins, as it would if the lines were sent one by one.
    if (batch.length >= plan.batchSize || remoteIds.has(r.remote_id) || (r.id !== null && ids.has(r.id))) {
      const refused = await flush();
      if (refused) {
        progress.done();
        return told(refused, io);
      }
    }
    batch.push(r);
    lines.push(item.line);
    remoteIds.add(r.remote_id);
    if (r.id !== null) ids.add(r.id);
  }
  const refused = await flush();
  progress.done();
  if (refused) return told(refused, io);
  io.out(`imported ${sent} records into office ${plan.officeId} in ${batches} batch${batches === 1 ? '' : 'es'}`);
  return 0;
}

function told(refused: string | NotAnswered, io: CliIo): number {
  io.err(refused instanceof NotAnswered ? refused.text : refused);
  return refused instanceof NotAnswered ? EXIT_NOT_ANSWERED : 1;
}

async function send(plan: SendPlan, n: number, records: TicketGroupInput[]): Promise<CommandResult | NotAnswered> {
  const payload = { officeId: plan.officeId, records };
  const outcome = await plan.dispatcher.dispatch({
    name: 'inventory.upsert',
    actor: plan.actor,
    payload,
    requestHash: requestFingerprint('inventory.upsert', payload),
  });
  if (outcome.kind === 'done') return outcome.result;
  if (await plan.dispatcher.exhausted(outcome.commandId)) {
    throw new Error(
      `batch ${n} failed on every attempt (infrastructure errors); nothing of it was written. ` +
        `See \`fulfil jobs show ${outcome.commandId}\`; importing again is safe.`,
    );
  }
  // Not answered in time: neither done nor refused (D-161, D-177). The batch stays queued and
  // runs when a worker takes it; the later ones are not sent, so the file's order still holds.
  return new NotAnswered(
    `fulfil inventory import: batch ${n}: no answer within ${plan.waitMs / 1000} s; it stays queued (command ${outcome.commandId}) ` +
      `and runs when a worker at ${plan.source} takes it; the later batches were not sent. Importing again is safe.`,
  );
}

/** A refused batch, told by file line where the worker named a record index. */
function describeRejection(file: string, result: CommandResult, lines: number[], n: number, sentBefore: number): string {
  const error = (result.body as { errors?: Array<{ message?: string }> } | null)?.errors?.[0];
  const message = error?.message ?? JSON.stringify(result.body);
  const at = /^records\.(\d+)\.?(.*)$/.exec(message);
  const where = at && lines[Number(at[1])] !== undefined ? `${file}:${lines[Number(at[1])]}: ${at[2]}` : `${file}: ${message}`;
  return (
    `${where}\nfulfil inventory import: batch ${n} (lines ${lines[0]}–${lines[lines.length - 1]}) was refused with ${result.status}; ` +
    `nothing of it was written. The ${sentBefore} records of earlier batches stay imported; importing again is safe.`
  );
}
