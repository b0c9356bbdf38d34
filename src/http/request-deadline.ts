import type { FastifyInstance, FastifyReply } from 'fastify';

const timers = new WeakMap<FastifyReply, NodeJS.Timeout>();

/**
 * Every request is answered within `ms`: a handler (or hook) stuck on a backend gets 503, mapped
 * from FST_ERR_HANDLER_TIMEOUT in error-handler.ts. Fastify's own handlerTimeout cannot do this for
 * requests with a body: it stops its timer on the request stream's 'close', which Node emits as
 * soon as the body has been read, so a stuck POST or PUT was never answered.
 */
export function installRequestDeadline(app: FastifyInstance, ms: number): void {
  // Callback hooks: no promise per request for work that never waits (docs/BENCHMARKS.md).
  app.addHook('onRequest', (request, reply, done) => {
    const timer = setTimeout(() => {
      // A client gone before its answer has nobody to answer (onResponse never ran for it).
      if (reply.sent || reply.raw.headersSent || reply.raw.destroyed) return;
      const err = Object.assign(new Error(`request did not finish within ${ms} ms`), { code: 'FST_ERR_HANDLER_TIMEOUT', statusCode: 503 });
      request.log.warn({ route: request.routeOptions.url, ms }, 'request deadline passed; answering 503');
      reply.send(err);
    }, ms);
    timer.unref();
    timers.set(reply, timer);
    done();
  });
  app.addHook('onResponse', (_request, reply, done) => {
    clearTimeout(timers.get(reply));
    done();
  });
}
