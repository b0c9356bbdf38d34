import { randomUUID } from 'node:crypto';
import { InvalidParams } from '@fulfil/contract';
import { isValidCommandId, type Actor } from '@fulfil/contract';

export interface SendOptions {
  /** The acting brokerage: the seller accepting or completing, the office owner for inventory. */
  brokerageId: number;
  /**
   * Idempotency: the same id sent again answers the first command's result and changes nothing;
   * reused for another command it answers 409 idempotency_conflict. 1–128 of A-Z a-z 0-9 _ . -
   * (not all digits). Default: a random id (returned).
   */
  commandId?: string;
  /** Wait for the result (the status and body the HTTP call would answer). */
  await?: boolean;
  /** With await: give up after this long with CommandTimeout. Default: the client's defaultTimeoutMs. */
  timeoutMs?: number;
}

export function checkId(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidParams(`${name}: must be a positive integer`, name);
  }
  return value;
}

/** Checks a call's options before anything is sent; BullMQ refuses all-digit custom job ids. */
export function parseSendOptions(
  opts: SendOptions,
  defaultTimeoutMs: number,
): { commandId: string; actor: Actor; wait: boolean; timeoutMs: number } {
  if (typeof opts !== 'object' || opts === null) throw new InvalidParams('options: must name the acting brokerageId', 'brokerageId');
  const brokerageId = checkId(opts.brokerageId, 'brokerageId');
  const commandId = opts.commandId ?? `u-${randomUUID()}`;
  if (typeof commandId !== 'string' || !isValidCommandId(commandId) || String(parseInt(commandId, 10)) === commandId) {
    throw new InvalidParams('commandId: must be 1 to 128 characters of A-Z a-z 0-9 _ . - and not only digits', 'commandId');
  }
  const timeoutMs = opts.timeoutMs ?? defaultTimeoutMs;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new InvalidParams('timeoutMs: must be a positive number of milliseconds', 'timeoutMs');
  }
  return { commandId, actor: { brokerageId, userId: null, via: 'upstream' }, wait: opts.await === true, timeoutMs };
}
