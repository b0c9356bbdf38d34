import type { FastifyPluginAsync } from 'fastify';
import { installAuth } from '../auth/plugin.ts';
import type { Database } from '../db/client.ts';
import type { Dispatch } from '../queues/dispatcher.ts';
import type { AuthDeps } from '../auth/plugin.ts';
import { installJsonBody, installRawBody } from './body.ts';
import { commandRoutes } from './routes/commands.ts';
import { credentialRoutes } from './routes/credential.ts';
import { deliveryIssueRoutes } from './routes/delivery-issues.ts';
import { holdRoutes } from './routes/holds.ts';
import { eventFeedRoutes, type FeedDeps } from './routes/event-feed.ts';
import { inventoryRoutes } from './routes/inventory.ts';
import { orderEventRoutes } from './routes/order-events.ts';
import { orderReadRoutes } from './routes/order-read.ts';
import { orderRoutes } from './routes/orders.ts';
import { shipmentReadRoutes } from './routes/shipment-read.ts';
import { shipmentRoutes } from './routes/shipments.ts';
import { shipmentFileRoutes, type FileRouteDeps } from './routes/shipment-files.ts';
import { mailedShipmentRoutes, type MailedRouteDeps } from './routes/mailed-shipments.ts';
import { webhookEndpointRoutes, type WebhookRouteDeps } from './routes/webhook-endpoints.ts';
import { testClockRoutes, type TestClockDeps } from './routes/test-clocks.ts';
import { testHelperRoutes, type TestHelperDeps } from './routes/test-helpers.ts';
import { simulatedPartyRoutes } from './routes/simulated-party.ts';

/**
 * Everything under /v9: authenticated, JSON whatever the Content-Type. Each route file only
 * translates HTTP to a command or a query; rules live in workers/ and src/domain/.
 */
export function v9Routes(
  deps: AuthDeps & {
    database: Database;
    readDatabase?: Database;
    dispatcher: Dispatch;
    feed: Omit<FeedDeps, 'database' | 'readDatabase'>;
    webhooks?: WebhookRouteDeps['webhooks'];
    /** Test mode's helpers; absent when SANDBOX is off (their routes are then 404). */
    sandbox?: (Omit<TestHelperDeps, 'database'> & Omit<TestClockDeps, 'database'>) | undefined;
  } & Pick<FileRouteDeps, 'files' | 'uploads' | 'inspect'> &
    Pick<MailedRouteDeps, 'carrier'>,
): FastifyPluginAsync {
  // A replica may lag: it serves the reads that tolerate that (docs/SCALING.md §Read replica);
  // command status, orders and shipments answer from the primary.
  const replica = { database: deps.readDatabase ?? deps.database };
  return async (v9) => {
    // Raw bytes first (auth verifies them), then auth, then JSON: all before every route.
    installRawBody(v9);
    installAuth(v9, deps);
    installJsonBody(v9);

    // Routes
    credentialRoutes(v9);
    commandRoutes(v9, deps);
    orderRoutes(v9, deps);
    shipmentRoutes(v9, deps);
    shipmentFileRoutes(v9, deps);
    deliveryIssueRoutes(v9, deps);
    holdRoutes(v9, deps);
    mailedShipmentRoutes(v9, deps);
    inventoryRoutes(v9, replica);
    orderReadRoutes(v9, deps);
    shipmentReadRoutes(v9, deps);
    orderEventRoutes(v9, replica);
    eventFeedRoutes(v9, { database: deps.database, readDatabase: deps.readDatabase, ...deps.feed });
    if (deps.webhooks) webhookEndpointRoutes(v9, { ...deps, webhooks: deps.webhooks });
    if (deps.sandbox) {
      testHelperRoutes(v9, { database: deps.database, ...deps.sandbox });
      testClockRoutes(v9, { database: deps.database, ...deps.sandbox });
      simulatedPartyRoutes(v9, deps);
    }
  };
}
