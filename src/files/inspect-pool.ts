import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { Unavailable } from '@fulfil/contract';
import { FileRefused, type FileFacts } from './file-refused.ts';
import type { InspectReply, InspectRequest } from './inspect-thread.ts';

/** Started from source (tests, tsx) the thread needs TypeScript too: tsx loads it there (as src/db/embedded-client.ts does). */
function spawn(resourceLimits: ResourceLimits): Worker {
  const here = import.meta.url;
  if (!new URL(here).pathname.endsWith('.ts')) return new Worker(new URL('./inspect-thread.js', here), { resourceLimits });
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const entry = new URL('./inspect-thread.ts', here).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`, {
    eval: true,
    resourceLimits,
  });
}

/**
 * A thread's JavaScript heap is capped, so a document whose objects would outgrow it ends the
 * thread (the file refused), never the process. Decoded stream bytes live outside the heap and are
 * capped by the parser itself (inspect-file.ts).
 */
const THREAD_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 192, maxYoungGenerationSizeMb: 32 };

/** No parsing thread came free in time: 503 with Retry-After, the upload not taken. */
export class ParseQueueFull extends Unavailable {
  constructor(message: string) {
    super(message);
    this.headers['retry-after'] = '2';
  }
}

interface Slot {
  worker: Worker;
  busy: boolean;
}

/**
 * Files are parsed in worker threads, so a 10 MiB PDF does not hold the API's event loop (and
 * every other request with it) for a second. At most `size` threads, started when first needed;
 * each inspection has a deadline: a file that keeps a parser busy longer (a hostile document) is
 * refused, and its thread replaced.
 */
export class InspectPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: ((slot: Slot) => void)[] = [];
  private nextId = 1;
  private closed = false;

  private readonly deadlineMs: number;
  private readonly queueMs: number;

  constructor(
    private readonly size: number,
    opts: { deadlineMs?: number; queueMs?: number } = {},
  ) {
    this.deadlineMs = opts.deadlineMs ?? 20_000;
    this.queueMs = opts.queueMs ?? 5_000;
  }

  async inspect(kind: InspectRequest['kind'], bytes: Uint8Array): Promise<FileFacts> {
    const slot = await this.take();
    try {
      return await this.run(slot, { id: this.nextId++, kind, bytes });
    } finally {
      this.give(slot);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }

  private take(): Promise<Slot> {
    const idle = this.slots.find((s) => !s.busy);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (this.slots.length < this.size) {
      const slot = { worker: this.start(), busy: true };
      this.slots.push(slot);
      return Promise.resolve(slot);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(go), 1);
        reject(new ParseQueueFull(`no file parser free within ${this.queueMs} ms on this server; retry shortly, nothing was taken`));
      }, this.queueMs);
      const go = (slot: Slot) => {
        clearTimeout(timer);
        resolve(slot);
      };
      this.waiting.push(go);
    });
  }

  private give(slot: Slot): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else slot.busy = false;
  }

  private start(): Worker {
    const worker = spawn(THREAD_LIMITS);
    worker.unref();
    return worker;
  }

  private run(slot: Slot, req: InspectRequest): Promise<FileFacts> {
    return new Promise((resolve, reject) => {
      const { worker } = slot;
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      const onMessage = (reply: InspectReply) => {
        if (reply.id !== req.id) return;
        done();
        if ('facts' in reply) return resolve(reply.facts);
        // A refused file may be hostile: its thread goes with whatever memory it grew.
        this.replace(slot);
        if ('refused' in reply) reject(new FileRefused(reply.refused.reason, reply.refused.message));
        else reject(new Error(`file inspection failed: ${reply.error}`));
      };
      const onError = (err: Error & { code?: string }) => {
        done();
        this.replace(slot);
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          reject(
            new FileRefused(
              'too_complex',
              `needs more than ${THREAD_LIMITS.maxOldGenerationSizeMb} MiB of memory to read; nothing was stored`,
            ),
          );
        } else reject(err);
      };
      const timer = setTimeout(() => {
        done();
        this.replace(slot);
        reject(new FileRefused('too_slow', `could not be read within ${this.deadlineMs / 1000} s`));
      }, this.deadlineMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage(req);
    });
  }

  /** A thread stuck or dead is ended and its slot given a new one. */
  private replace(slot: Slot): void {
    void slot.worker.terminate();
    if (!this.closed) slot.worker = this.start();
  }
}
