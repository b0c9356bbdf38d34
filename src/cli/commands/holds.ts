import { HOLD_REASONS, placeHoldCommand, releaseHoldCommand, type CommandResult } from '@fulfil/contract';
import { loadConfig } from '../../config.ts';
import { holdsOfOrder } from '../../db/sql/holds.ts';
import { holdJson } from '../../domain/hold-json.ts';
import { placeHoldAsOperator, releaseHoldAsOperator } from '../../ops/hold-as-operator.ts';
import { withCliDatabase } from '../database.ts';
import { withServiceDispatcher } from '../service-dispatch.ts';
import { CliFailure, EXIT_NOT_ANSWERED, intArg, UsageError, type CliIo, type CommandModule } from '../command.ts';
import { tableLines } from '../table.ts';

type Hold = ReturnType<typeof holdJson>;

/** `fulfil holds list <order_id> [--json]`: every hold of the order, oldest first, from the database. */
export const holdsList: CommandModule = {
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('expected one order id');
    const orderId = intArg(positionals[0], 'order_id');
    return withCliDatabase(loadConfig(), async (database) => {
      const holds = (await holdsOfOrder(database, orderId)).map(holdJson);
      if (values.json) {
        io.out(JSON.stringify({ holds }));
        return 0;
      }
      const rows = holds.map((h) => [
        String(h.id),
        h.state,
        h.reason,
        h.placed_at,
        h.release_at ?? '-',
        h.released_at ? `${h.released_at} (${h.release_why})` : '-',
        h.seats.join(',') || 'all',
      ]);
      for (const line of tableLines(['HOLD', 'STATE', 'REASON', 'PLACED', 'RELEASE AT', 'RELEASED', 'SEATS'], rows)) io.out(line);
      io.out(`${holds.length} hold(s)`);
      return 0;
    });
  },
};

/** The answer of an operator's hold command, told as the CLI tells it; the exit code. */
function told(
  io: CliIo,
  what: string,
  sent: { commandId: string; result: CommandResult | undefined },
  waitS: number,
  done: (h: Hold) => string,
) {
  if (!sent.result) {
    io.err(
      `fulfil holds: ${what}: no answer within ${waitS} s; the command stays queued (command ${sent.commandId}): check with fulfil holds list`,
    );
    return EXIT_NOT_ANSWERED;
  }
  if (sent.result.status >= 300) {
    const body = sent.result.body as { errors?: Array<{ message: string }> };
    throw new CliFailure(`${what}: ${body.errors?.[0]?.message ?? `refused (${sent.result.status})`}`);
  }
  io.out(done(sent.result.body as Hold));
  return 0;
}

const SERVICE_OPTIONS = { operator: { type: 'string' }, wait: { type: 'string', default: '30' }, base: { type: 'string' } } as const;

/** `fulfil holds place <order_id> --reason … [--notes] [--handle] [--release-at] [--seats 1,2]`: an operator's hold (any reason). */
export const holdsPlace: CommandModule = {
  options: {
    reason: { type: 'string' },
    notes: { type: 'string' },
    handle: { type: 'string' },
    'release-at': { type: 'string' },
    seats: { type: 'string' },
    ...SERVICE_OPTIONS,
  },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('expected one order id');
    const waitS = intArg(values.wait as string, '--wait');
    const parsed = placeHoldCommand.safeParse({
      order_id: intArg(positionals[0], 'order_id'),
      reason: values.reason,
      operator: (values.operator as string | undefined) ?? 'cli',
      ...(values.notes !== undefined ? { notes: values.notes } : {}),
      ...(values.handle !== undefined ? { handle: values.handle } : {}),
      ...(values['release-at'] !== undefined ? { release_at: values['release-at'] } : {}),
      ...(values.seats !== undefined ? { seats: String(values.seats).split(',') } : {}),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new UsageError(
        `--${String(issue.path[0] ?? 'reason').replace('_', '-')}: ${issue.message} (reasons: ${HOLD_REASONS.join(', ')})`,
      );
    }
    return withServiceDispatcher(
      loadConfig(),
      { base: values.base as string | undefined, waitMs: waitS * 1000, onError: (m) => io.err(`fulfil holds place: ${m}`) },
      async (deps) => {
        const sent = await placeHoldAsOperator(deps, parsed.data);
        if (!sent) throw new CliFailure(`there is no order ${parsed.data.order_id}`);
        return told(
          io,
          `order ${parsed.data.order_id}`,
          sent,
          waitS,
          (h) => `hold ${h.id} on order ${h.order_id}: ${h.reason}, ${h.state}`,
        );
      },
    );
  },
};

/** `fulfil holds release <hold_id> [--notes …]`: an operator releases a hold (any reason). */
export const holdsRelease: CommandModule = {
  options: { notes: { type: 'string' }, ...SERVICE_OPTIONS },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('expected one hold id');
    const waitS = intArg(values.wait as string, '--wait');
    const parsed = releaseHoldCommand.safeParse({
      hold_id: intArg(positionals[0], 'hold_id'),
      operator: (values.operator as string | undefined) ?? 'cli',
      ...(values.notes !== undefined ? { notes: values.notes } : {}),
    });
    if (!parsed.success) throw new UsageError(`--notes at most 2000 characters; --operator at most 200`);
    return withServiceDispatcher(
      loadConfig(),
      { base: values.base as string | undefined, waitMs: waitS * 1000, onError: (m) => io.err(`fulfil holds release: ${m}`) },
      async (deps) => {
        const sent = await releaseHoldAsOperator(deps, parsed.data);
        if (!sent) throw new CliFailure(`there is no hold ${parsed.data.hold_id}`);
        return told(
          io,
          `hold ${parsed.data.hold_id}`,
          sent,
          waitS,
          (h) => `hold ${h.id} released; deadline moved by ${h.deadline_extended_ms} ms`,
        );
      },
    );
  },
};
