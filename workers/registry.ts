import { JOB_NAMES, type JobName } from '@fulfil/contract';
import type { Handler } from './handler.ts';

export type Registry = ReadonlyMap<JobName, Handler>;

/** Maps each job name to its handler; refuses to start when a name has none, or several. */
export function buildRegistry(handlers: readonly Handler[], names: readonly JobName[] = JOB_NAMES): Registry {
  const byName = new Map<JobName, Handler[]>();
  for (const h of handlers) byName.set(h.name, [...(byName.get(h.name) ?? []), h]);
  const missing = names.filter((n) => !byName.has(n));
  const doubled = [...byName].filter(([, hs]) => hs.length > 1).map(([n]) => n);
  const unknown = [...byName.keys()].filter((n) => !names.includes(n));
  const problems = [
    missing.length ? `no handler for ${missing.join(', ')}` : '',
    doubled.length ? `more than one handler for ${doubled.join(', ')}` : '',
    unknown.length ? `handler for unknown job ${unknown.join(', ')}` : '',
  ].filter(Boolean);
  if (problems.length) throw new Error(`worker registry: ${problems.join('; ')}`);
  return new Map([...byName].map(([n, hs]) => [n, hs[0]!]));
}
