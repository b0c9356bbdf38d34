import type { FastifyReply, FastifyRequest } from 'fastify';
import { Unavailable } from '@fulfil/contract';
import { countUploadRefused } from '../telemetry/file-metrics.ts';

const HELD = Symbol('upload slot held');

/**
 * At most `size` uploads at once in this process, taken before the body is read (onRequest):
 * each holds up to 25 MiB of body, its decoded files and a parsed document, so the process's
 * memory is bounded by the slots, not by how many clients upload at once. An upload that waits
 * longer than `waitMs` for a slot is answered 503 with Retry-After, its body unread.
 */
export class UploadSlots {
  private busy = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly size: number,
    private readonly waitMs: number,
  ) {}

  /** The onRequest hook of an upload route. */
  readonly take = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // A slot given back goes straight to the first waiter, so `busy` never passes `size`.
    if (this.busy >= this.size) await this.wait();
    else this.busy++;
    (request as unknown as Record<symbol, boolean>)[HELD] = true;
    // Given back however the request ends: answered, failed or abandoned by the client.
    const release = () => this.release(request);
    reply.raw.once('close', release);
    request.raw.once('close', () => {
      if (reply.raw.writableFinished || reply.sent) return;
      release();
    });
  };

  private wait(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = this.queue.indexOf(go);
        if (at >= 0) this.queue.splice(at, 1);
        countUploadRefused('busy');
        const busy = new Unavailable('too many uploads at once on this server; retry shortly, nothing was taken');
        busy.headers['retry-after'] = '2';
        reject(busy);
      }, this.waitMs);
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      this.queue.push(go);
    });
  }

  private release(request: FastifyRequest): void {
    const held = request as unknown as Record<symbol, boolean>;
    if (!held[HELD]) return;
    held[HELD] = false;
    const next = this.queue.shift();
    if (next) next();
    else this.busy--;
  }
}
