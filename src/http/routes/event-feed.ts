import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import type { Database } from '../../db/client.ts';
import { parseQuery } from '../../domain/query-params.ts';
import type { FeedWaiters } from '../../events/feed-waiters.ts';
import type { FeedCursors } from '../../read/feed-cursor.ts';
import { FEED_DEFAULT_LIMIT, feedQuery } from '../../read/feed-query.ts';
import { readFeed } from '../../read/read-feed.ts';
import { EVENT_FEED_DOCS } from './event-feed.docs.ts';

export interface FeedDeps {
  database: Pick<Database, 'db'>;
  readDatabase?: Pick<Database, 'db'> | undefined;
  feedWaiters: FeedWaiters;
  feedCursors: FeedCursors;
  /** A long poll ends this much before the request deadline (HTTP_HANDLER_TIMEOUT_MS) would answer 503. */
  maxWaitMs: number;
}

export function eventFeedRoutes(v9: FastifyInstance, deps: FeedDeps): void {
  v9.get('/events', { schema: EVENT_FEED_DOCS.list }, async (request, reply) => {
    const query = parseQuery(feedQuery, request.query);
    const caller = callerOf(request);
    // A client that hangs up releases its waiter at once rather than at its timeout.
    const gone = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) gone.abort();
    };
    reply.raw.once('close', onClose);
    try {
      return await readFeed(
        {
          reader: (deps.readDatabase ?? deps.database).db,
          primary: deps.database.db,
          waiters: deps.feedWaiters,
          cursors: deps.feedCursors,
        },
        {
          brokerageId: caller.brokerageId,
          credential: caller.token,
          after: query.after,
          limit: query.limit ?? FEED_DEFAULT_LIMIT,
          waitMs: Math.min((query.wait ?? 0) * 1000, deps.maxWaitMs),
          signal: gone.signal,
        },
      );
    } finally {
      reply.raw.off('close', onClose);
    }
  });
}
