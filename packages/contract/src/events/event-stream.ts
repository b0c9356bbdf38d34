import type { EventMessage } from './event-message.ts';

/**
 * One entry of the events stream (eventsStreamKey, XADD by the service's outbox relay): the event
 * id, so a consumer can de-duplicate before parsing, and the message as JSON.
 */
export function eventStreamFields(message: { event_id: string }): [string, string, string, string] {
  return ['event_id', message.event_id, 'message', JSON.stringify(message)];
}

/**
 * The message of an entry as XRANGE, XREAD or XREADGROUP give it (`[field, value, field, value…]`).
 * Entries are at least once: the same event_id can come twice after a relay crash, in order.
 */
export function parseEventStreamEntry(fields: readonly string[]): EventMessage {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 'message') return JSON.parse(fields[i + 1]!) as EventMessage;
  }
  throw new TypeError('not an entry of the events stream: it has no message field');
}
