/**
 * Callers waiting for something to happen to an id (a job finishing, a command's answer), each
 * with its own deadline: `wait` resolves with what woke it, or false on timeout, cancel or abort.
 * Both the client's event listeners and the service's reply channel keep their waiters here.
 */
export class WaitingRoom<W> {
  private readonly waiting = new Map<string, Set<(w: W | false) => void>>();

  wait(id: string, timeoutMs: number, signal?: AbortSignal): { done: Promise<W | false>; cancel: () => void } {
    let set = this.waiting.get(id);
    if (!set) this.waiting.set(id, (set = new Set()));
    let finish!: (v: W | false) => void;
    const done = new Promise<W | false>((resolve) => (finish = resolve));
    set.add(finish);
    const timer = setTimeout(() => finish(false), timeoutMs);
    const cancel = () => finish(false);
    signal?.addEventListener('abort', cancel, { once: true });
    void done.then(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
      const s = this.waiting.get(id);
      s?.delete(finish);
      if (s?.size === 0) this.waiting.delete(id);
    });
    return { done, cancel };
  }

  /** Ids someone waits for. */
  get size(): number {
    return this.waiting.size;
  }

  wake(id: string, w: W): void {
    const set = this.waiting.get(id);
    if (set) for (const finish of [...set]) finish(w);
  }

  wakeAll(w: W): void {
    for (const set of this.waiting.values()) for (const finish of [...set]) finish(w);
  }
}
