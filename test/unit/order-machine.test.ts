import { describe, expect, it } from 'vitest';
import { getShortestPaths, getSimplePaths } from 'xstate/graph';
import {
  applyOrderEvent,
  initialOrderSnapshot,
  orderMachine,
  orderView,
  type OrderEvent,
  type PersistedOrder,
} from '../../machines/order.ts';

const EVENTS: OrderEvent[] = [{ type: 'ACCEPT' }, { type: 'COMPLETE' }];

function drive(...events: OrderEvent['type'][]): PersistedOrder {
  let snapshot = initialOrderSnapshot();
  for (const type of events) {
    const result = applyOrderEvent(snapshot, { type });
    if (!result.ok) throw new Error(`setup step ${type} refused: ${result.reason}`);
    snapshot = result.snapshot;
  }
  return snapshot;
}

describe('order graph paths', () => {
  const generators = { getShortestPaths, getSimplePaths };
  it.each(Object.keys(generators) as (keyof typeof generators)[])('%s replay through applyOrderEvent', (name) => {
    const paths = generators[name](orderMachine, { events: EVENTS });
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) {
      let snapshot = initialOrderSnapshot();
      // Step 0 is the graph's synthetic init step (the initial state); the rest are real events.
      expect(path.steps[0]?.event.type as string).toBe('xstate.init');
      for (const [index, step] of path.steps.entries()) {
        if (index > 0) {
          const result = applyOrderEvent(snapshot, step.event);
          expect(result.ok, step.event.type).toBe(true);
          if (result.ok) snapshot = result.snapshot;
        }
        expect(snapshot.value).toEqual(step.state.value);
      }
      expect(snapshot.value).toEqual(path.state.value);
    }
    expect(paths.map((p) => p.state.value).sort()).toEqual(['accepted', 'completed', 'pending']);
  });
});

describe('order lifecycle', () => {
  it('starts pending and reaches completed through accepted', () => {
    expect(orderView(initialOrderSnapshot())).toEqual({ state: 'pending' });
    const done = drive('ACCEPT', 'COMPLETE');
    expect(orderView(done)).toEqual({ state: 'completed' });
    expect(done.status).toBe('done');
  });

  it('rehydrates a JSON round-tripped snapshot to the same state', () => {
    const accepted = drive('ACCEPT');
    const stored: PersistedOrder = JSON.parse(JSON.stringify(accepted));
    expect(orderView(stored)).toEqual({ state: 'accepted' });
    const result = applyOrderEvent(stored, { type: 'COMPLETE' });
    expect(result.ok && result.view.state).toBe('completed');
  });
});

// For each state, where each allowed event leads; any event missing from `allowed` is refused.
const TABLE: { state: string; from: () => PersistedOrder; allowed: Partial<Record<OrderEvent['type'], string>> }[] = [
  { state: 'pending', from: () => drive(), allowed: { ACCEPT: 'accepted' } },
  { state: 'accepted', from: () => drive('ACCEPT'), allowed: { COMPLETE: 'completed' } },
  { state: 'completed', from: () => drive('ACCEPT', 'COMPLETE'), allowed: {} },
];
const CASES = TABLE.flatMap((row) =>
  EVENTS.map((event) => ({ state: row.state, from: row.from, event, expected: row.allowed[event.type] })),
);

describe('allowed and refused events per state', () => {
  // Checked against the machine itself, not the table: a state or an event the machine gains
  // and the table lacks fails here.
  it('table covers every reachable state and every event the machine takes', () => {
    const reachable = getShortestPaths(orderMachine, { events: EVENTS }).map((p) => p.state.value);
    expect(TABLE.map((row) => orderView(row.from()).state)).toEqual(TABLE.map((row) => row.state));
    expect(new Set(TABLE.map((row) => row.state))).toEqual(new Set(reachable));
    expect(new Set(reachable)).toEqual(new Set(Object.keys(orderMachine.states)));
    const machineEvents = orderMachine.events.filter((type) => !type.startsWith('xstate.'));
    expect(new Set(EVENTS.map((e) => e.type))).toEqual(new Set(machineEvents));
  });

  it.each(CASES)('$state: $event.type → $expected', ({ state, from, event, expected }) => {
    const result = applyOrderEvent(from(), event);
    if (expected === undefined) {
      expect(result).toMatchObject({ ok: false, view: { state } });
      if (!result.ok) expect(result.reason).toContain(`order is ${state}`);
    } else {
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.view.state).toBe(expected);
    }
  });
});
