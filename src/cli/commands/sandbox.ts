import { intArg, UsageError, type CliArgs, type CommandModule } from '../command.ts';
import { SIGNED_CALL_OPTIONS, signedCall } from './call.ts';

/**
 * `fulfil sandbox …`: test mode's helpers (docs/API.md §Test mode), each one signed call to the
 * running service with a test credential, printed and exiting as `fulfil call` does.
 */

const ROLES = ['seller', 'buyer'];

/** A test clock's id as the API takes it: a number when it is one, else as typed (the service says what is wrong). */
const clockOf = (v: string) => (/^\d+$/.test(v) ? Number(v) : v);

/** `fulfil sandbox order --role seller|buyer [--delivery …] [--quantity n] [--in-hand-on date] [--clock id]`. */
export const sandboxOrder: CommandModule = {
  options: {
    ...SIGNED_CALL_OPTIONS,
    role: { type: 'string' },
    delivery: { type: 'string' },
    quantity: { type: 'string' },
    'in-hand-on': { type: 'string' },
    clock: { type: 'string' },
  },
  async run({ positionals, values }: CliArgs, io) {
    if (positionals.length > 0) throw new UsageError('expected no arguments');
    const role = values.role as string | undefined;
    if (!role || !ROLES.includes(role)) throw new UsageError(`--role: expected seller or buyer, got ${role ?? 'nothing'}`);
    const body = {
      role,
      ...(values.delivery !== undefined ? { delivery: values.delivery } : {}),
      ...(values.quantity !== undefined ? { quantity: intArg(values.quantity as string, '--quantity') } : {}),
      ...(values['in-hand-on'] !== undefined ? { in_hand_on: values['in-hand-on'] } : {}),
      ...(values.clock !== undefined ? { test_clock: clockOf(values.clock as string) } : {}),
    };
    return signedCall(values, 'POST', '/v9/test_helpers/orders', JSON.stringify(body), io);
  },
};

/** `fulfil sandbox act <order_id> <action> [--reason …] [--notes …] [--fields '{"seats":["1"]}']`. */
export const sandboxAct: CommandModule = {
  options: { ...SIGNED_CALL_OPTIONS, reason: { type: 'string' }, notes: { type: 'string' }, fields: { type: 'string' } },
  async run({ positionals, values }: CliArgs, io) {
    if (positionals.length !== 2) throw new UsageError('expected an order id and an action');
    const orderId = intArg(positionals[0], 'order_id');
    let fields: unknown = {};
    if (values.fields !== undefined) {
      try {
        fields = JSON.parse(values.fields as string);
      } catch {
        throw new UsageError('--fields: expected a JSON object');
      }
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new UsageError('--fields: expected a JSON object');
    }
    const body = {
      ...(fields as object),
      action: positionals[1],
      ...(values.reason !== undefined ? { reason: values.reason } : {}),
      ...(values.notes !== undefined ? { notes: values.notes } : {}),
    };
    return signedCall(values, 'POST', `/v9/test_helpers/orders/${orderId}/actions`, JSON.stringify(body), io);
  },
};
