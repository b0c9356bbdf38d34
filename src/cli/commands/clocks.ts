import { intArg, UsageError, type CliArgs, type CommandModule } from '../command.ts';
import { SIGNED_CALL_OPTIONS, signedCall } from './call.ts';

/**
 * `fulfil clocks …`: test clocks (docs/API.md §Test clocks), each one signed call to the running
 * service with a test credential, printed and exiting as `fulfil call` does.
 */

function oneId(positionals: string[]): number {
  if (positionals.length !== 1) throw new UsageError('expected a test clock id');
  return intArg(positionals[0], 'clock_id');
}

/** `fulfil clocks create --time <iso> [--name …]`. */
export const clocksCreate: CommandModule = {
  options: { ...SIGNED_CALL_OPTIONS, time: { type: 'string' }, name: { type: 'string' } },
  async run({ positionals, values }: CliArgs, io) {
    if (positionals.length > 0) throw new UsageError('expected no arguments');
    if (values.time === undefined) throw new UsageError("--time: give the clock's start, e.g. 2027-01-01T00:00:00Z");
    const body = { frozen_time: values.time, ...(values.name !== undefined ? { name: values.name } : {}) };
    return signedCall(values, 'POST', '/v9/test_clocks', JSON.stringify(body), io);
  },
};

/** `fulfil clocks advance <id> --to <iso>`. */
export const clocksAdvance: CommandModule = {
  options: { ...SIGNED_CALL_OPTIONS, to: { type: 'string' } },
  async run({ positionals, values }: CliArgs, io) {
    const id = oneId(positionals);
    if (values.to === undefined) throw new UsageError('--to: give the time to advance to, e.g. 2027-01-03T00:00:00Z');
    return signedCall(values, 'POST', `/v9/test_clocks/${id}/advance`, JSON.stringify({ frozen_time: values.to }), io);
  },
};

/** `fulfil clocks show [<id>]`: one clock, or every clock of the sandbox. */
export const clocksShow: CommandModule = {
  options: { ...SIGNED_CALL_OPTIONS },
  async run({ positionals, values }: CliArgs, io) {
    if (positionals.length === 0) return signedCall(values, 'GET', '/v9/test_clocks', undefined, io);
    return signedCall(values, 'GET', `/v9/test_clocks/${oneId(positionals)}`, undefined, io);
  },
};

/** `fulfil clocks delete <id>`. */
export const clocksDelete: CommandModule = {
  options: { ...SIGNED_CALL_OPTIONS },
  async run({ positionals, values }: CliArgs, io) {
    return signedCall(values, 'DELETE', `/v9/test_clocks/${oneId(positionals)}`, undefined, io);
  },
};
