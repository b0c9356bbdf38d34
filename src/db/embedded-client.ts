import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Call, Event, Request, ThreadOptions } from './embedded-protocol.ts';
import { fromWireError } from './embedded-protocol.ts';

/**
 * The service thread's side of the embedded PGlite, which runs in a thread of its own
 * (embedded-thread.ts) so that a long statement holds that thread, never the service's event
 * loop (/livez, HTTP, workers). It is also what bounds a CLI guest's statement: PGlite cannot
 * interrupt a running statement (no working statement_timeout), so when a guest's statement has
 * run for `guestStatementMs` the watchdog here terminates the thread and opens the database again
 * from its directory, which recovers like a Postgres after a crash (committed work kept, the rest
 * rolled back). The service's calls then in flight fail like on a Postgres restart (57P01: HTTP
 * answers 503, workers retry); calls made meanwhile wait for the new thread.
 */

export interface Restart {
  reason: string;
  /** The guest (pglite-socket.ts handler id) whose statement overran, when that was why. */
  overrun?: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  onData?: (data: Uint8Array) => void;
}

interface Subscriber {
  onNotify: (payload: string) => void;
  onListen?: () => void;
}

export interface EmbeddedThreadOptions {
  /** A CLI guest's statement running longer than this restarts the thread (0: no bound). */
  guestStatementMs: number;
}

/** Started from source (tests, tsx) the thread needs TypeScript too: tsx loads it there. */
function spawn(data: ThreadOptions): Worker {
  const here = import.meta.url;
  if (!new URL(here).pathname.endsWith('.ts')) return new Worker(new URL('./embedded-thread.js', here), { workerData: data });
  // tsx's ESM entry (its CommonJS one cannot tsImport from an eval'd thread), found next to the
  // CommonJS one that require.resolve names.
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const entry = new URL('./embedded-thread.ts', here).href;
  const code = `import(${JSON.stringify(tsx)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`;
  return new Worker(code, { eval: true, workerData: data });
}

export class EmbeddedThread {
  private worker!: Worker;
  private ready!: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private watchdog: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly channels = new Map<string, Set<Subscriber>>();
  private readonly restartHandlers: Array<(r: Restart) => void> = [];
  private readonly stallHandlers: Array<(handlerId: number) => void> = [];
  /** Times the thread was restarted, for tests and logs. */
  restarts = 0;

  private constructor(
    private readonly dir: string,
    private readonly options: EmbeddedThreadOptions,
  ) {
    this.start();
  }

  static async open(dir: string, options: EmbeddedThreadOptions): Promise<EmbeddedThread> {
    const thread = new EmbeddedThread(dir, options);
    try {
      await thread.ready;
    } catch (err) {
      thread.closing = true;
      await thread.worker.terminate();
      throw err;
    }
    return thread;
  }

  private start(): void {
    const worker = spawn({ dir: this.dir });
    this.worker = worker;
    let opened = false;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (e: Event) => {
        if (worker !== this.worker) return; // a terminated thread's last words
        if (e.type === 'ready') {
          opened = true;
          resolve();
        } else if (e.type === 'open-failed') reject(fromWireError(e.error));
        else this.onEvent(e);
      });
      worker.on('error', (err) => reject(err));
      worker.on('exit', (code) => {
        reject(new Error(`the embedded database thread exited (code ${code}) before it was ready`));
        // A thread that could not open the database is not restarted (it would fail again): calls fail.
        if (opened && worker === this.worker && !this.closing)
          this.restart({ reason: `the embedded database thread exited (code ${code})` });
      });
    });
    this.ready.catch(() => {}); // callers see it through call()
  }

  private onEvent(e: Event): void {
    switch (e.type) {
      case 'reply': {
        const p = this.pending.get(e.id);
        this.pending.delete(e.id);
        if (e.ok) p?.resolve(e.value);
        else p?.reject(fromWireError(e.error));
        return;
      }
      case 'guest-data':
        this.pending.get(e.id)?.onData?.(e.data);
        return;
      case 'guest-busy':
        clearTimeout(this.watchdog);
        if (this.options.guestStatementMs > 0) {
          const ms = this.options.guestStatementMs;
          const reason = `a CLI guest's statement ran longer than EMBEDDED_GUEST_STATEMENT_MS (${ms} ms)`;
          this.watchdog = setTimeout(() => this.restart({ reason, overrun: e.handlerId }), ms);
        }
        return;
      case 'guest-idle':
        clearTimeout(this.watchdog);
        return;
      case 'guest-stall':
        for (const h of this.stallHandlers) h(e.handlerId);
        return;
      case 'notify':
        for (const s of this.channels.get(e.channel) ?? []) s.onNotify(e.payload);
        return;
      default:
        return;
    }
  }

  /** Stops the thread wherever it is and opens the database again from its directory. */
  private restart(why: Restart): void {
    clearTimeout(this.watchdog);
    const old = this.worker;
    void old.terminate();
    if (this.closing) return;
    this.restarts++;
    // Guests first, so the one whose statement overran hears why before its connection closes.
    for (const h of this.restartHandlers) h(why);
    const lost = Object.assign(new Error(`terminating connection: the embedded database restarted (${why.reason})`), { code: '57P01' });
    for (const p of this.pending.values()) p.reject(lost);
    this.pending.clear();
    this.start();
    // LISTEN again on the new session; notifications sent meanwhile are lost, as after a reconnect.
    void this.ready.then(async () => {
      for (const [channel, subscribers] of this.channels) {
        await this.call({ op: 'listen', channel });
        for (const s of subscribers) s.onListen?.();
      }
    });
  }

  /** The thread to post to: the newest, once it has opened the database. */
  private async current(): Promise<Worker> {
    for (;;) {
      const ready = this.ready;
      await ready;
      if (ready === this.ready) return this.worker;
    }
  }

  async call(request: Request, onData?: (data: Uint8Array) => void): Promise<unknown> {
    if (this.closing && request.op !== 'close')
      throw Object.assign(new Error('the embedded database is closed'), { code: 'CONNECTION_ENDED' });
    const worker = await this.current();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, ...(onData ? { onData } : {}) });
      worker.postMessage({ id, request } satisfies Call);
    });
  }

  async listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<() => Promise<void>> {
    const s: Subscriber = { onNotify, ...(onListen ? { onListen } : {}) };
    let subscribers = this.channels.get(channel);
    if (!subscribers) this.channels.set(channel, (subscribers = new Set()));
    subscribers.add(s);
    if (subscribers.size === 1) await this.call({ op: 'listen', channel });
    onListen?.();
    return async () => {
      subscribers.delete(s);
      if (subscribers.size === 0 && this.channels.get(channel) === subscribers) {
        this.channels.delete(channel);
        // Nobody listens any more: a notification that still arrives finds no subscriber.
        await this.call({ op: 'unlisten', channel }).catch(() => {});
      }
    };
  }

  onRestart(handler: (r: Restart) => void): void {
    this.restartHandlers.push(handler);
  }

  onStall(handler: (handlerId: number) => void): void {
    this.stallHandlers.push(handler);
  }

  /** Closes PGlite cleanly (a checkpoint), giving a statement still running a few seconds. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.watchdog);
    // A close that fails or hangs ends the same way: the thread is terminated below.
    const closed = this.call({ op: 'close' }).catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((r) => (timer = setTimeout(r, 5_000)))]);
    clearTimeout(timer);
    await this.worker.terminate();
  }
}
