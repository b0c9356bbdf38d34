import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { Unavailable } from '@fulfil/contract';
import { admitByHeaders, type AuthDeps } from '../auth/plugin.ts';
import { BodyTooSlow } from '../http-errors.ts';
import { countUploadRefused, observeUploadSlotWait, setUploadSlotsInUse, setUploadsWaiting } from '../telemetry/file-metrics.ts';

export interface UploadAdmissionLimits {
  /** Uploads in flight in this process, from admission until the answer is sent. */
  slots: number;
  /** Of those, at most this many for one credential. */
  perCredential: number;
  /** How long an upload waits for a slot before 503. */
  waitMs: number;
  /** A body must arrive at least this fast on average, once `graceMs` has passed (408 otherwise). */
  minBytesPerSecond: number;
  graceMs: number;
}

interface Waiter {
  token: string;
  go: () => void;
}

const HELD = Symbol('upload slot held');
type Held = { [HELD]?: string };

/**
 * Admission to the upload routes, decided on the headers before a byte of the body is read: the
 * caller must name an active credential (an unknown or missing one is 401 and holds nothing), and
 * then takes one of this process's upload slots, at most `perCredential` of them per credential so
 * that one seller cannot hold them all. A slot is held until the answer is sent or the socket
 * closes (the response's 'close', not the request's: Node ends the request as soon as its body is
 * read, while the files are still being parsed). Each slot holds up to 25 MiB of body, its decoded
 * files and a parse, so the process's memory is bounded by the slots, not by how many upload.
 */
export class UploadAdmission {
  private inUse = 0;
  private readonly byCredential = new Map<string, number>();
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly limits: UploadAdmissionLimits,
    private readonly auth: AuthDeps,
  ) {}

  /** The onRequest hook of an upload route. */
  readonly admit = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // Refused here, the body is never read: the connection closes after the answer.
    const token = await admitByHeaders(request, this.auth).catch((err: unknown) => {
      countUploadRefused('unauthenticated');
      reply.header('connection', 'close');
      throw err;
    });
    const started = performance.now();
    if (this.free(token)) this.grant(token);
    else
      await this.wait(token, reply).catch((err: unknown) => {
        reply.header('connection', 'close');
        throw err;
      });
    observeUploadSlotWait((performance.now() - started) / 1000);
    (request as unknown as Held)[HELD] = token;
    // 'close' on the response: after the last byte of the answer, or when the socket goes first
    // (a socket gone while the slot was being handed over gives it back at once).
    if (request.raw.socket?.destroyed) this.release(request);
    else reply.raw.once('close', () => this.release(request));
  };

  /**
   * The preParsing hook of an upload route: the body is cut off (408) when it arrives too slowly.
   * The pace check belongs to its request: it ends with the answer or the socket, whichever
   * comes first. A request answered before its body was read (413 on its Content-Length, a
   * refusal) would otherwise leave the check running, and its 408 would fail a stream nobody
   * reads any more: an exception outside any request, which stops the process.
   */
  readonly pace: preParsingHookHandler = (_request, reply, payload, done) => {
    const paced = new PacedBody(this.limits, () => reply.header('connection', 'close'));
    payload.on('error', (err) => paced.destroy(err));
    // Fastify listens while it reads the body; this one keeps a failure after that from being
    // unhandled (the request's own handling has already answered, or the client is gone).
    paced.on('error', () => {});
    const end = () => paced.stop();
    if (reply.raw.writableFinished || reply.raw.destroyed) end();
    else reply.raw.once('close', end);
    done(null, payload.pipe(paced));
  };

  private free(token: string): boolean {
    return this.inUse < this.limits.slots && (this.byCredential.get(token) ?? 0) < this.limits.perCredential;
  }

  private grant(token: string): void {
    this.inUse++;
    this.byCredential.set(token, (this.byCredential.get(token) ?? 0) + 1);
    setUploadSlotsInUse(this.inUse);
  }

  /** Waits for a slot; a client that goes away while it waits leaves the queue at once. */
  private wait(token: string, reply: FastifyReply): Promise<void> {
    return new Promise((resolve, reject) => {
      const gone = () => {
        clearTimeout(timer);
        this.leave(waiter);
        reject(new Error('the client went away while its upload waited for a slot'));
      };
      const waiter: Waiter = {
        token,
        go: () => {
          clearTimeout(timer);
          reply.raw.off('close', gone);
          resolve();
        },
      };
      reply.raw.once('close', gone);
      this.queue.push(waiter);
      setUploadsWaiting(this.queue.length);
      const timer = setTimeout(() => {
        reply.raw.off('close', gone);
        this.leave(waiter);
        const ownShareFull = (this.byCredential.get(token) ?? 0) >= this.limits.perCredential;
        countUploadRefused(ownShareFull ? 'credential_share' : 'busy');
        const busy = new Unavailable(
          ownShareFull
            ? `this credential already has ${this.limits.perCredential} upload(s) in progress on this server; retry when one is answered, nothing was taken`
            : 'too many uploads at once on this server; retry shortly, nothing was taken',
        );
        busy.headers['retry-after'] = '2';
        reject(busy);
      }, this.limits.waitMs);
    });
  }

  private leave(waiter: Waiter): void {
    this.queue.splice(this.queue.indexOf(waiter), 1);
    setUploadsWaiting(this.queue.length);
  }

  private release(request: FastifyRequest): void {
    const held = request as unknown as Held;
    const token = held[HELD];
    if (token === undefined) return;
    delete held[HELD];
    this.inUse--;
    const left = (this.byCredential.get(token) ?? 1) - 1;
    if (left > 0) this.byCredential.set(token, left);
    else this.byCredential.delete(token);
    // The first waiter whose credential has room goes next: one seller's queue never blocks another's.
    const at = this.queue.findIndex((w) => this.free(w.token));
    if (at >= 0) {
      const next = this.queue[at]!;
      this.leave(next);
      this.grant(next.token);
      next.go();
    }
    setUploadSlotsInUse(this.inUse);
  }
}

/**
 * The body passed through, its bytes counted: once `graceMs` has passed, the average since the
 * first byte was awaited must stay at or above `minBytesPerSecond`, checked each second, else the
 * stream fails with 408 and the connection is closed after the answer (the rest of the body is
 * never read). A client that drips a byte a second cannot hold a slot for longer than the grace.
 */
class PacedBody extends Transform {
  private received = 0;
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly limits: Pick<UploadAdmissionLimits, 'minBytesPerSecond' | 'graceMs'>,
    private readonly closeAfter: () => void,
  ) {
    super();
    this.timer = setInterval(() => this.check(), 1_000);
    this.timer.unref();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    clearInterval(this.timer);
    callback();
  }

  /** Its request is over: no more checks, and the unread rest of the body is let go. */
  stop(): void {
    clearInterval(this.timer);
    if (!this.destroyed) this.destroy();
  }

  override _destroy(err: Error | null, callback: (error: Error | null) => void): void {
    clearInterval(this.timer);
    callback(err);
  }

  private check(): void {
    if (this.destroyed) return clearInterval(this.timer);
    const elapsed = performance.now() - this.started;
    if (elapsed < this.limits.graceMs) return;
    if (this.received >= (this.limits.minBytesPerSecond * elapsed) / 1000) return;
    countUploadRefused('body_too_slow');
    this.closeAfter();
    this.destroy(
      new BodyTooSlow(
        `the request body arrived slower than ${this.limits.minBytesPerSecond} bytes a second (${this.received} bytes in ${Math.round(elapsed / 1000)} s); nothing was taken`,
      ),
    );
  }
}
