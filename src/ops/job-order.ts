import { eq } from 'drizzle-orm';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { Executor } from '../db/client.ts';
import { commands, shipments } from '../db/schema.ts';
import { NotFound } from '@fulfil/contract';
import { findJob } from './failed-jobs.ts';
import { requireOpsToken, type FailureLimiter } from './ops-auth.ts';

interface JobIds {
  commandId?: string;
  order_id?: unknown;
  shipment_id?: unknown;
  new_shipment_id?: unknown;
  payload?: { order_id?: unknown; shipment_id?: unknown };
}

const asId = (v: unknown) =>
  typeof v === 'number' || (typeof v === 'string' && /^\d{1,16}$/.test(v) && Number.isSafeInteger(Number(v))) ? Number(v) : undefined;

/**
 * The order a job is about: a command's payload names the order (accept) or a shipment (update,
 * complete); an event names both. A job whose data was trimmed still has its command id, whose
 * row keeps the payload.
 */
export async function orderOfJob(ex: Executor, data: JobIds): Promise<number | undefined> {
  const direct = asId(data.payload?.order_id ?? data.order_id);
  if (direct !== undefined) return direct;
  let shipmentId = asId(data.payload?.shipment_id ?? data.shipment_id ?? data.new_shipment_id);
  if (shipmentId === undefined && data.commandId) {
    const [row] = await ex.select({ payload: commands.payload }).from(commands).where(eq(commands.id, data.commandId));
    const payload = row?.payload as JobIds['payload'] | undefined;
    const fromRow = asId(payload?.order_id);
    if (fromRow !== undefined) return fromRow;
    shipmentId = asId(payload?.shipment_id);
  }
  if (shipmentId === undefined) return undefined;
  const [s] = await ex.select({ orderId: shipments.orderId }).from(shipments).where(eq(shipments.id, shipmentId));
  return s?.orderId;
}

/** /ops/jobs/:queue/:id/order: from a job in the queue board to the view of its order (the board's job page links here). */
export function jobOrderRoute(
  app: FastifyInstance,
  deps: { queues: readonly Queue[]; database: { db: Executor }; opsToken: string | undefined; failures?: FailureLimiter | undefined },
): void {
  app.get('/ops/jobs/:queue/:id/order', { onRequest: requireOpsToken(deps.opsToken, 'basic', deps.failures) }, async (request, reply) => {
    const { queue, id } = request.params as { queue: string; id: string };
    const found = await findJob(
      deps.queues.filter((q) => q.name === queue),
      id,
    );
    if (!found) throw new NotFound(`no job ${id} in queue ${queue}`);
    const orderId = await orderOfJob(deps.database.db, found.job.data as JobIds);
    if (orderId === undefined) throw new NotFound(`job ${id} is not about an order`);
    return reply.redirect(`/ops/orders/${orderId}`, 303);
  });
}
