/**
 * A statement sent now and awaited later, or never: its failure reaches whoever awaits it, and is
 * not reported as an unhandled rejection when nobody does (a claim that finds its command
 * finished drops the reads sent behind it; a failed lock fails the read queued after it).
 */
export function sentAhead<T>(pending: Promise<T>): Promise<T> {
  pending.catch(() => {});
  return pending;
}
