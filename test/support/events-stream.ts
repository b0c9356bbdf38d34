import type { Cluster, Redis } from 'ioredis';
import { eventsStreamKey, parseEventStreamEntry, type EventMessage } from '@fulfil/contract';

export type StreamMessage = EventMessage & { entryId: string; entryEventId: string };

/** Every entry of the prefix's events stream, oldest first, as a consumer parses it (XRANGE - +). */
export async function streamMessages(redis: Redis | Cluster, prefix: string): Promise<StreamMessage[]> {
  const entries = await redis.xrange(eventsStreamKey(prefix), '-', '+');
  return entries.map(([entryId, fields]) => ({
    ...parseEventStreamEntry(fields),
    entryId,
    entryEventId: fields[fields.indexOf('event_id') + 1]!,
  }));
}
