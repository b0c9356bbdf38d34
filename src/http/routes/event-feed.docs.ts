import { feedQuery } from '../../read/feed-query.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import * as bodies from '../openapi/response-bodies.ts';
import { ok, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

/** The reference of event-feed.ts. */
export const EVENT_FEED_DOCS = {
  list: v9({
    tag: 'Events',
    operationId: 'listEvents',
    summary: "Every event of your brokerage's orders (seller or buyer), oldest first",
    description:
      'The brokerage-wide feed: every shipment event of every order your brokerage is a party to, as event objects (the same objects webhooks deliver), oldest first, each order\'s events in seq order. Page with `after` (the `next_cursor` of the previous page; opaque) and `limit`. With `wait`, a request that finds nothing new waits up to that many seconds and answers as soon as an event arrives, or with an empty page and the same cursor. No event is ever skipped: an event appears after every event already listed (docs/WEBHOOKS.md, "Pulling instead: the event feed"). 503 with Retry-After when too many long polls are already waiting; 429 with Retry-After, at once, when your credential or your brokerage already has its share of them waiting.',
    querystring: jsonSchemaOf(feedQuery),
    response: ok(bodies.eventFeedPage, 'a page of events'),
    errors: [400, ...V9_ERRORS],
    badRequest: '`after` that is not a `next_cursor` this feed gave (`field`: after)',
  }),
};
