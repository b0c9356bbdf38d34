/** Resolves as p does, or rejects once ms have passed (the timer never outlives p). */
export function withDeadline<T>(p: Promise<T>, ms: number, what = 'did not finish'): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} in ${ms} ms`)), ms))),
  ]);
}
