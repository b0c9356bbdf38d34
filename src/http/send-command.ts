import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOf, callerOf } from '../auth/caller.ts';
import { InvalidParams, requestFingerprint } from '@fulfil/contract';
import type { JobMap, JobName } from '@fulfil/contract';
import type { Dispatch, DispatchOutcome } from '../queues/dispatcher.ts';
import { endSpan, failSpan, requestAttributes, startSpan, traceMetadata } from '../telemetry/tracing.ts';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The one way a route hands a command over: Idempotency-Key and `Prefer: respond-async` are read
 * here, the command is dispatched, and the answer is the command's stored result, or 202 with
 * the command's Location when it is still running.
 */
export async function sendCommand<N extends JobName>(
  deps: { dispatcher: Dispatch },
  request: FastifyRequest,
  reply: FastifyReply,
  name: N,
  payload: JobMap[N],
  /** Called with a finished command's answer before it is sent (a route's own clean-up after a refusal). */
  settle?: (result: { status: number; body: unknown }) => Promise<void>,
  /**
   * What the caller asked, when the command holds more than that (a label the carrier sold): the
   * Idempotency-Key is matched against it, so a retry whose command the carrier's answer changed
   * (joined, or bought before) is the same request.
   */
  asked?: unknown,
): Promise<FastifyReply> {
  const caller = callerOf(request);
  const key = request.headers['idempotency-key'];
  if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
    throw new InvalidParams('Idempotency-Key: must be 1 to 255 visible ASCII characters', 'Idempotency-Key');
  }
  const prefer = String(request.headers.prefer ?? '');
  // One trace per command: the request's span is the parent of the worker's (the job carries its context).
  const span = startSpan(() => [`${request.method} ${request.routeOptions.url}`, requestAttributes(request, name, payload)]);
  let outcome: DispatchOutcome;
  try {
    outcome = await deps.dispatcher.dispatch({
      name,
      actor: actorOf(caller),
      payload,
      requestHash: requestFingerprint(name, (asked ?? payload) as JobMap[N]),
      idempotencyKey: key,
      async: /(^|[\s,;])respond-async\b/i.test(prefer),
      requestId: request.id,
      traceMetadata: traceMetadata(span),
    });
  } catch (err) {
    failSpan(span, err);
    throw err;
  }
  request.log.info({ commandId: outcome.commandId, command: name, outcome: outcome.kind }, 'command dispatched');
  reply.header('x-command-id', outcome.commandId);
  endSpan(span, {
    'fulfil.command_id': outcome.commandId,
    'http.response.status_code': outcome.kind === 'done' ? outcome.result.status : 202,
  });
  if (outcome.kind === 'done') {
    await settle?.(outcome.result);
    return reply.status(outcome.result.status).send(outcome.result.body);
  }
  const location = `/v9/commands/${outcome.commandId}`;
  return reply.status(202).header('location', location).send({ id: outcome.commandId, status: 'queued', url: location });
}
