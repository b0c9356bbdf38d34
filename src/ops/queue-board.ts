import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { AppError, Forbidden, toErrorBody } from '@fulfil/contract';
import { MethodNotAllowed } from '../http-errors.ts';
import type { FormGuard } from './form-guard.ts';
import { requireOpsToken, type FailureLimiter } from './ops-auth.ts';

export const QUEUE_BOARD_PATH = '/ops/queues';

const DESCRIPTIONS: Record<string, string> = {
  commands: 'Order and shipment commands (accept, update, complete); one job per command.',
  inventory: 'Inventory commands (upsert, map, remove) from HTTP, the CLI and upstream systems.',
};

/**
 * bull-board has no hook for links of its own on a job, so its page gets this script: on a job's
 * page (…/queue/<name>/<id>) it shows "open its order", a link to /ops/jobs/<name>/<id>/order,
 * which finds the order from the job's data and redirects to the order view. The board is a
 * single-page app, so the script follows its address as it changes.
 */
const JOB_ORDER_LINK = `<script>(() => {
  const a = document.createElement('a');
  a.id = 'fulfil-job-order';
  a.textContent = 'open its order →';
  a.style.cssText = 'position:fixed;right:16px;bottom:16px;z-index:9999;padding:8px 14px;background:#0b6b3a;color:#fff;border-radius:6px;font:14px system-ui,sans-serif;text-decoration:none;display:none';
  document.body.appendChild(a);
  const base = '${QUEUE_BOARD_PATH}/queue/';
  setInterval(() => {
    const p = location.pathname;
    const rest = p.startsWith(base) ? p.slice(base.length).split('/') : [];
    const on = rest.length >= 2 && rest[1] !== '';
    a.style.display = on ? 'block' : 'none';
    if (on) a.href = '/ops/jobs/' + rest[0] + '/' + rest[1] + '/order';
  }, 300);
})();</script>`;

export interface QueueBoardOptions {
  queues: readonly Queue[];
  opsToken: string | undefined;
  failures?: FailureLimiter | undefined;
  /** OPS_WRITE: retry, clean, promote and the like; off, the board only shows. */
  write: boolean;
  /** Its changes come from its own page only (D-162); bull-board's page sends no form token of ours. */
  forms?: FormGuard;
}

/**
 * bull-board at /ops/queues for every queue of the service, behind OPS_TOKEN. Read-only unless
 * the operator turned write mode on; bull-board refuses changes itself in that mode, and the hook
 * here refuses every non-GET call first, so a board bug cannot open a write path.
 */
export async function registerQueueBoard(app: FastifyInstance, opts: QueueBoardOptions): Promise<void> {
  const adapter = new FastifyAdapter();
  adapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: opts.queues.map(
      (q) => new BullMQAdapter(q, { readOnlyMode: !opts.write, allowRetries: opts.write, description: DESCRIPTIONS[q.name] ?? '' }),
    ),
    serverAdapter: adapter,
    options: {
      uiConfig: {
        boardTitle: 'fulfil queues',
        hideDocsLink: true,
        miscLinks: [{ text: 'Order view', url: '/ops/orders' }],
        environment: opts.write
          ? { label: 'write mode', color: '#b00020', textColor: '#fff' }
          : { label: 'read-only', color: '#2e7d32', textColor: '#fff' },
      },
    },
  });
  await app.register(async (scope) => {
    // bull-board installs its own error handler in its scope, so a refusal is answered here, in
    // the contract's shape, rather than thrown into it.
    const guard = requireOpsToken(opts.opsToken, 'basic', opts.failures);
    scope.addHook('onRequest', async function (this: FastifyInstance, request, reply) {
      try {
        await guard.call(this, request, reply);
        if (!opts.write && request.method !== 'GET' && request.method !== 'HEAD') {
          throw new MethodNotAllowed('the queue board is read-only; set OPS_WRITE=true to retry or clean jobs', ['GET', 'HEAD']);
        }
        const refused = request.method === 'GET' || request.method === 'HEAD' ? undefined : opts.forms?.sameOrigin(request);
        if (refused) throw new Forbidden(`${refused} (the queue board's actions come from its own page)`);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return reply.code(err.status).headers(err.headers).send(toErrorBody(err));
      }
    });
    // The board's page links a web font; operators' networks are often closed, and the page
    // should not tell a third party who looks at the queues: everything is served from here.
    scope.addHook('onSend', async (_request, reply, payload) => {
      if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return payload;
      reply.header(
        'content-security-policy',
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
      );
      return payload.replace(/<link[^>]+https:\/\/fonts\.[^>]*>\s*/g, '').replace('</body>', `${JOB_ORDER_LINK}</body>`);
    });
    await scope.register(adapter.registerPlugin(), { prefix: QUEUE_BOARD_PATH });
  });
}
