import type { RedisConnection } from '@fulfil/client/transport';
import { eventStreamFields, eventsStreamKey } from '@fulfil/contract';

export interface EventsStreamOptions {
  /** Entries kept (trimmed with `MAXLEN ~`: in whole nodes of the stream, so up to a node's entries more). */
  maxLen: number;
}

/**
 * The events stream (EVENTS_STREAM=on): the relay appends each batch with XADD, trimming as it
 * goes, so Redis holds at most about `maxLen` events however long no one reads them. A stream,
 * not a queue: every consumer group (and every plain XREAD) sees every event, and reading takes
 * nothing away. Postgres stays the record; the stream is the fast way to hear of an event.
 */
export class EventsStream {
  private readonly key: string;

  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    private readonly opts: EventsStreamOptions,
  ) {
    this.key = eventsStreamKey(prefix);
  }

  /**
   * One MULTI for the batch, in its order. A refused XADD fails the batch, which the relay then
   * rolls back and sends again: entries that did land come twice (consumers de-duplicate on event_id).
   */
  async publish(messages: readonly { event_id: string }[]): Promise<void> {
    const multi = this.connection.multi();
    for (const m of messages) multi.xadd(this.key, 'MAXLEN', '~', this.opts.maxLen, '*', ...eventStreamFields(m));
    const results = await multi.exec();
    if (!results) throw new Error('the events stream refused the batch (transaction aborted)');
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0]!;
  }
}
