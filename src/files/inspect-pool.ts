import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FileRefused, type FileFacts } from './inspect-file.ts';
import type { InspectReply, InspectRequest } from './inspect-thread.ts';

/** Started from source (tests, tsx) the thread needs TypeScript too: tsx loads it there (as src/db/embedded-client.ts does). */
function spawn(): Worker {
  const here = import.meta.url;
  if (!new URL(here).pathname.endsWith('.ts')) return new Worker(new URL('./inspect-thread.js', here));
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const entry = new URL('./inspect-thread.ts', here).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`, {
    eval: true,
  });
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

  constructor(
    private readonly size: number,
    private readonly deadlineMs = 20_000,
  ) {}

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
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private give(slot: Slot): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else slot.busy = false;
  }

  private start(): Worker {
    const worker = spawn();
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
        if ('facts' in reply) resolve(reply.facts);
        else if ('refused' in reply) reject(new FileRefused(reply.refused.reason, reply.refused.message));
        else reject(new Error(`file inspection failed: ${reply.error}`));
      };
      const onError = (err: Error) => {
        done();
        this.replace(slot);
        reject(err);
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
