import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '@fulfil/contract';
import type { Handler } from '../../workers/handler.ts';
import { HANDLERS, registry } from '../../workers/index.ts';
import { buildRegistry } from '../../workers/registry.ts';

describe('worker registry', () => {
  it('has exactly one handler for every job name of the job map', () => {
    const reg = registry();
    expect([...reg.keys()].sort()).toEqual([...JOB_NAMES].sort());
    for (const name of JOB_NAMES) expect(reg.get(name)!.name).toBe(name);
  });

  it('refuses to start with a job name that has no handler', () => {
    const withoutComplete = HANDLERS.filter((h) => h.name !== 'shipment.complete');
    expect(() => buildRegistry(withoutComplete)).toThrow(/no handler for shipment\.complete/);
  });

  it('refuses two handlers for one job name', () => {
    expect(() => buildRegistry([...HANDLERS, HANDLERS[0]!])).toThrow(/more than one handler for order\.accept/);
  });

  it('refuses a handler for a job the job map does not know', () => {
    const stray = { ...HANDLERS[0]!, name: 'order.refund' } as unknown as Handler;
    expect(() => buildRegistry([...HANDLERS, stray])).toThrow(/handler for unknown job order\.refund/);
  });
});
