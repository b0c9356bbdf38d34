import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Database } from '../../db/client.ts';
import { parseId, parseOrThrow } from '@fulfil/contract';
import { listAttempts, ping, redeliver } from '../../webhooks/deliveries-log.ts';
import { createEndpointBody, deliveriesQuery, redeliverBody, rotateSecretBody, updateEndpointBody } from '../../webhooks/endpoint-input.ts';
import {
  createEndpoint,
  deleteEndpoint,
  brokerageLivemode,
  endpointJson,
  listEndpoints,
  ownEndpoint,
  rotateSecret,
  updateEndpoint,
  type EndpointRules,
} from '../../webhooks/endpoints.ts';
import { sweepWebhooks } from '../../webhooks/sweep.ts';
import type { WebhookQueue } from '../../webhooks/webhook-queue.ts';
import { WEBHOOK_ENDPOINT_DOCS as DOCS } from './webhook-endpoints.docs.ts';

export interface WebhookRouteDeps {
  database: Database;
  secretBox: SecretBox;
  webhooks: { queue: WebhookQueue; rules: EndpointRules };
}

const DEFAULT_GRACE_SECONDS = 86_400;

/** A brokerage's webhook endpoints and their deliveries log (docs/API.md §Webhook endpoints). */
export function webhookEndpointRoutes(v9: FastifyInstance, deps: WebhookRouteDeps): void {
  const { database } = deps;
  // Read when a request comes, not at registration (the OpenAPI build registers routes without dependencies).
  const { webhooks } = deps;
  const own = (request: { params: { id: string } } & Parameters<typeof callerOf>[0]) =>
    ownEndpoint(database.db, callerOf(request).brokerageId, parseId(request.params.id, 'id'));

  v9.post('/webhook_endpoints', { schema: DOCS.create }, async (request, reply) => {
    const body = parseOrThrow(createEndpointBody, request.body ?? {});
    const created = await createEndpoint(database.db, deps.secretBox, webhooks.rules, callerOf(request).brokerageId, body);
    return reply.status(201).send(created);
  });

  v9.get('/webhook_endpoints', { schema: DOCS.list }, async (request) => listEndpoints(database.db, callerOf(request).brokerageId));

  v9.get<{ Params: { id: string } }>('/webhook_endpoints/:id', { schema: DOCS.read }, async (request) =>
    endpointJson(await own(request), await brokerageLivemode(database.db, callerOf(request).brokerageId)),
  );

  v9.route<{ Params: { id: string } }>({
    method: ['PATCH', 'PUT'],
    url: '/webhook_endpoints/:id',
    schema: DOCS.update,
    handler: async (request) => {
      const id = parseId(request.params.id, 'id');
      const body = parseOrThrow(updateEndpointBody, request.body ?? {});
      const updated = await updateEndpoint(database.db, webhooks.rules, callerOf(request).brokerageId, id, body);
      if (updated.enabled) await resume(id);
      return updated.endpoint;
    },
  });

  v9.delete<{ Params: { id: string } }>('/webhook_endpoints/:id', { schema: DOCS.remove }, async (request, reply) => {
    await deleteEndpoint(database.db, callerOf(request).brokerageId, parseId(request.params.id, 'id'));
    return reply.status(204).send();
  });

  v9.post<{ Params: { id: string } }>('/webhook_endpoints/:id/rotate_secret', { schema: DOCS.rotateSecret }, async (request) => {
    const id = parseId(request.params.id, 'id');
    const body = parseOrThrow(rotateSecretBody, request.body ?? {});
    return rotateSecret(database.db, deps.secretBox, callerOf(request).brokerageId, id, body.grace_seconds ?? DEFAULT_GRACE_SECONDS);
  });

  v9.get<{ Params: { id: string } }>('/webhook_endpoints/:id/deliveries', { schema: DOCS.deliveries }, async (request) => {
    // Bad input is refused as such, whether or not the endpoint exists.
    const query = parseOrThrow(deliveriesQuery, request.query ?? {}, 'query');
    const endpoint = await own(request);
    return listAttempts(database.db, endpoint.id, { limit: query.limit, beforeId: query.before_id, orderId: query.order_id });
  });

  v9.post<{ Params: { id: string } }>('/webhook_endpoints/:id/redeliver', { schema: DOCS.redeliver }, async (request, reply) => {
    const body = parseOrThrow(redeliverBody, request.body ?? {});
    const endpoint = await own(request);
    return reply.status(202).send(await redeliver(database, webhooks.queue, endpoint.id, body));
  });

  v9.post<{ Params: { id: string } }>('/webhook_endpoints/:id/ping', { schema: DOCS.ping }, async (request, reply) => {
    const endpoint = await own(request);
    return reply.status(202).send(await ping(database, webhooks.queue, endpoint.id));
  });

  /** Re-enabled: every undelivered event is due now, each order's chain from its first one. */
  async function resume(endpointId: number): Promise<void> {
    await database.rows(`update webhook_deliveries set next_attempt_at = now() where endpoint_id = $1 and delivered_at is null`, [
      endpointId,
    ]);
    await sweepWebhooks(database, webhooks.queue, { endpointId });
  }
}
