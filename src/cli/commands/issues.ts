import {
  closeIssueCommand,
  commandShardPlaces,
  DELIVERY_ISSUE_OUTCOMES,
  DELIVERY_ISSUE_STATES,
  type DeliveryIssueState,
} from '@fulfil/contract';
import { blockingConnection, CommandQueues, CommandWaiters, producerConnection, type RedisConnection } from '@fulfil/client/transport';
import { loadConfig } from '../../config.ts';
import { issueById } from '../../db/sql/delivery-issues.ts';
import { issueJson } from '../../domain/delivery-issue-json.ts';
import { closeIssueAsOperator } from '../../ops/close-issue.ts';
import { CommandDispatcher } from '../../queues/dispatcher.ts';
import { openCliDatabase, withCliDatabase } from '../database.ts';
import { requireWorkers, serviceQueues } from '../service-queues.ts';
import { CliFailure, EXIT_NOT_ANSWERED, intArg, UsageError, type CommandModule } from '../command.ts';
import { tableLines } from '../table.ts';

/** `fulfil issues list [--state escalated]`: delivery issues, oldest first, from the database. */
export const issuesList: CommandModule = {
  options: { state: { type: 'string' }, mode: { type: 'string' }, limit: { type: 'string', default: '100' }, json: { type: 'boolean' } },
  async run({ values, positionals }, io) {
    if (positionals.length > 0) throw new UsageError(`unexpected ${positionals.join(' ')}`);
    const state = values.state as string | undefined;
    if (state !== undefined && !DELIVERY_ISSUE_STATES.includes(state as DeliveryIssueState)) {
      throw new UsageError(`--state: one of ${DELIVERY_ISSUE_STATES.join(', ')}`);
    }
    // Live issues unless asked (D-202): a sandbox's are not an operator's work.
    const mode = (values.mode as string | undefined) ?? 'live';
    if (!['live', 'test', 'all'].includes(mode)) throw new UsageError('--mode: one of live, test, all');
    const limit = intArg(values.limit as string, '--limit');
    return withCliDatabase(loadConfig(), async (database) => {
      // Escalated ones in the order they wait for an operator; the others by when they were opened.
      const order = state === 'escalated' ? 'i.escalated_at, i.id' : 'i.id';
      const ids = await database.rows<{ id: string }>(
        `select i.id from delivery_issues i join orders o on o.id = i.order_id
         where ($1::text is null or i.state = $1) and ($3::text = 'all' or o.livemode = ($3::text = 'live'))
         order by ${order} limit $2::int`,
        [state ?? null, limit, mode],
      );
      const issues = [];
      for (const { id } of ids) issues.push(issueJson((await issueById(database, Number(id)))!));
      if (values.json) {
        io.out(JSON.stringify({ delivery_issues: issues }));
        return 0;
      }
      const rows = issues.map((i) => [
        String(i.id),
        String(i.order_id),
        i.state,
        i.reason,
        i.outcome ?? '-',
        i.opened_at,
        i.respond_by,
        i.escalated_at ? `${i.escalated_at} by ${i.escalated_by}` : '-',
      ]);
      for (const line of tableLines(['ISSUE', 'ORDER', 'STATE', 'REASON', 'OUTCOME', 'OPENED', 'RESPOND BY', 'ESCALATED'], rows))
        io.out(line);
      io.out(`${issues.length} issue(s)`);
      return 0;
    });
  },
};

/**
 * `fulfil issues close <id> --outcome … [--notes …]`: the command `delivery_issue.close`, sent to
 * the running service's workers as every command is (the same handler as the ops page's form).
 */
export const issuesClose: CommandModule = {
  options: {
    outcome: { type: 'string' },
    notes: { type: 'string' },
    operator: { type: 'string' },
    wait: { type: 'string', default: '30' },
    base: { type: 'string' },
  },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('expected one delivery issue id');
    const waitMs = intArg(values.wait as string, '--wait') * 1000;
    const parsed = closeIssueCommand.safeParse({
      issue_id: intArg(positionals[0], 'issue_id'),
      outcome: values.outcome,
      ...(values.notes !== undefined ? { notes: values.notes } : {}),
      ...(values.operator !== undefined ? { operator: values.operator } : {}),
    });
    if (!parsed.success) throw new UsageError(`--outcome: one of ${DELIVERY_ISSUE_OUTCOMES.join(', ')}; --notes at most 2000 characters`);
    const config = loadConfig();
    const closers: Array<() => Promise<unknown>> = [];
    try {
      // The service first (D-160): a command for nobody is refused before anything is written.
      const redis = await serviceQueues(config, values.base as string | undefined);
      const places = commandShardPlaces(redis.prefix, redis.shards);
      await requireWorkers(redis, places);
      const { database } = await openCliDatabase(config);
      closers.push(() => database.close());
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
        shards: redis.shards,
      });
      const waiters = new CommandWaiters(places, {
        connection: () => connect(() => blockingConnection(redis.url)),
      });
      closers.push(async () => {
        await waiters.close();
        await queues.close();
      });
      await waiters.ready();
      const log = { error: (_detail: object, message: string) => io.err(`fulfil issues close: ${message}`) };
      const dispatcher = new CommandDispatcher({ database, queues, waiters, waitMs, log });
      const done = await closeIssueAsOperator({ database, dispatcher }, parsed.data);
      if (!done) throw new CliFailure(`there is no delivery issue ${parsed.data.issue_id}`);
      if (!done.result) {
        io.err(
          `fulfil issues close: issue ${parsed.data.issue_id}: no answer within ${waitMs / 1000} s; the close stays queued ` +
            `(command ${done.commandId}) and runs when a worker at ${redis.source} takes it: check with fulfil issues list`,
        );
        return EXIT_NOT_ANSWERED;
      }
      if (done.result.status !== 200) {
        const body = done.result.body as { errors?: Array<{ message: string }> };
        throw new CliFailure(`issue ${parsed.data.issue_id}: ${body.errors?.[0]?.message ?? `refused (${done.result.status})`}`);
      }
      io.out(`issue ${parsed.data.issue_id} closed: ${parsed.data.outcome}`);
      return 0;
    } finally {
      for (const close of closers.reverse()) await close().catch(() => {});
    }
  },
};
