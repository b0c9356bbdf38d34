import type { FastifyInstance } from 'fastify';
import { NotFound } from '@fulfil/contract';
import type { CarrierAdapter } from '../../carriers/carrier-adapter.ts';
import type { SqlRunner } from '../../db/database.ts';
import { takeCarrierWebhook } from '../../domain/carrier-webhook.ts';
import type { Dispatch } from '../../queues/dispatcher.ts';
import { BODY_LIMIT } from '../body.ts';
import { EASYPOST_WEBHOOK_DOC } from './mailed-shipments.docs.ts';

/** The most a carrier webhook's body may hold (256 KiB). */
export const CARRIER_BODY_LIMIT = 4 * BODY_LIMIT;

export interface CarrierWebhookRouteDeps {
  database: SqlRunner;
  dispatcher: Dispatch;
  /** The EasyPost adapter when EASYPOST_WEBHOOK_SECRET is set; absent, the route answers 404. */
  easypost?: CarrierAdapter | undefined;
}

/**
 * POST /carriers/easypost/events: outside /v9 and its credentials; EasyPost's own signature
 * (X-Hmac-Signature over the raw bytes) is the check, so the body is kept as received.
 */
export function carrierWebhookRoutes(deps: CarrierWebhookRouteDeps) {
  return async (scope: FastifyInstance) => {
    const carrier = deps.easypost;
    scope.removeAllContentTypeParsers();
    // EasyPost's events carry the whole tracker (every scan): four times the API's limit, said as such in a 413.
    const bodyLimit = CARRIER_BODY_LIMIT;
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
    scope.post('/carriers/easypost/events', { schema: EASYPOST_WEBHOOK_DOC, bodyLimit }, async (request, reply) => {
      if (!carrier) throw new NotFound('no EasyPost webhook secret is configured (EASYPOST_WEBHOOK_SECRET)');
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const outcome = await takeCarrierWebhook({ ...deps, carrier }, raw, request.headers);
      request.log.info({ carrierEvent: outcome }, 'carrier webhook taken');
      if (outcome.kind === 'ignored') return reply.send({ taken: false, shipment_id: null, recorded: null, reason: outcome.reason });
      if (outcome.kind === 'accepted') return reply.send({ taken: true, shipment_id: outcome.shipmentId, recorded: null, reason: null });
      const body = outcome.body as { recorded?: number };
      // A refusal (the order is no longer open, say) is still taken: EasyPost must not retry it.
      return reply.send({
        taken: true,
        shipment_id: outcome.shipmentId,
        recorded: body?.recorded ?? 0,
        reason: outcome.status === 200 ? null : JSON.stringify(outcome.body),
      });
    });
  };
}
