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

const EVENTS: OrderEvent[] = [
  { type: 'ACCEPT' },
  { type: 'REJECT' },
  { type: 'CANCEL', by: 'seller' },
  { type: 'CANCEL', by: 'buyer' },
  { type: 'WITHDRAW', by: 'seller' },
  { type: 'WITHDRAW', by: 'buyer' },
  { type: 'COMPLETE' },
];
const label = (e: OrderEvent) => ('by' in e ? `${e.type}(${e.by})` : e.type);
const byLabel = new Map(EVENTS.map((e) => [label(e), e]));

function drive(...events: string[]): PersistedOrder {
  let snapshot = initialOrderSnapshot();
  for (const name of events) {
    const event = byLabel.get(name);
    if (!event) throw new Error(`no event ${name}`);
    const result = applyOrderEvent(snapshot, event);
    if (!result.ok) throw new Error(`setup step ${name} refused: ${result.reason}`);
    snapshot = result.snapshot;
  }
  return snapshot;
}

const stateName = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

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
    expect(new Set(paths.map((p) => stateName(p.state.value)))).toEqual(
      new Set([
        'pending',
        'accepted',
        'rejected',
        'completed',
        'canceled',
        JSON.stringify({ cancel_proposed: 'seller' }),
        JSON.stringify({ cancel_proposed: 'buyer' }),
      ]),
    );
  });
});

describe('order lifecycle', () => {
  it('starts pending and reaches completed through accepted', () => {
    expect(orderView(initialOrderSnapshot())).toEqual({ state: 'pending', proposedBy: null });
    const done = drive('ACCEPT', 'COMPLETE');
    expect(orderView(done)).toEqual({ state: 'completed', proposedBy: null });
    // Stored: the state value alone; a final state takes no event.
    expect(done).toEqual({ value: 'completed' });
    for (const event of EVENTS) expect(applyOrderEvent(done, event).ok).toBe(false);
  });

  it("reads a snapshot stored whole (getPersistedSnapshot's output, as rows written before keep it) as the stored value alone", () => {
    const whole = orderMachine.getPersistedSnapshot(
      orderMachine.resolveState({ value: { cancel_proposed: 'buyer' } }),
    ) as unknown as PersistedOrder;
    expect(whole).toHaveProperty('status', 'active');
    expect(orderView(whole)).toEqual({ state: 'cancel_proposed', proposedBy: 'buyer' });
    const confirmed = applyOrderEvent(whole, { type: 'CANCEL', by: 'seller' });
    expect(confirmed).toMatchObject({ ok: true, snapshot: { value: 'canceled' }, view: { state: 'canceled' } });
  });

  it('is canceled when one party proposes and the other confirms, from either side', () => {
    expect(orderView(drive('ACCEPT', 'CANCEL(seller)'))).toEqual({ state: 'cancel_proposed', proposedBy: 'seller' });
    expect(orderView(drive('ACCEPT', 'CANCEL(buyer)', 'CANCEL(seller)'))).toEqual({ state: 'canceled', proposedBy: null });
    expect(orderView(drive('ACCEPT', 'CANCEL(seller)', 'CANCEL(buyer)')).state).toBe('canceled');
    expect(orderView(drive('ACCEPT', 'CANCEL(buyer)', 'WITHDRAW(buyer)', 'COMPLETE')).state).toBe('completed');
  });

  it('names why a refused event is refused', () => {
    const proposed = drive('ACCEPT', 'CANCEL(seller)');
    expect(applyOrderEvent(proposed, { type: 'COMPLETE' })).toMatchObject({
      ok: false,
      reason: "order is cancel_proposed; the buyer must answer the seller's cancellation first",
    });
    expect(applyOrderEvent(proposed, { type: 'WITHDRAW', by: 'buyer' })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('only the seller may withdraw'),
    });
    expect(applyOrderEvent(drive('ACCEPT'), { type: 'REJECT' })).toMatchObject({
      ok: false,
      reason: 'order is accepted; only a pending order can be rejected',
    });
  });

  it('rehydrates a JSON round-tripped snapshot to the same state', () => {
    const accepted = drive('ACCEPT');
    const stored: PersistedOrder = JSON.parse(JSON.stringify(accepted));
    expect(orderView(stored)).toEqual({ state: 'accepted', proposedBy: null });
    const result = applyOrderEvent(stored, { type: 'COMPLETE' });
    expect(result.ok && result.view.state).toBe('completed');
  });
});

// For each state, where each allowed event leads; any event missing from `allowed` is refused.
const TABLE: { state: string; from: () => PersistedOrder; allowed: Record<string, string> }[] = [
  { state: 'pending', from: () => drive(), allowed: { ACCEPT: 'accepted', REJECT: 'rejected' } },
  { state: 'rejected', from: () => drive('REJECT'), allowed: {} },
  {
    state: 'accepted',
    from: () => drive('ACCEPT'),
    allowed: { COMPLETE: 'completed', 'CANCEL(seller)': 'cancel_proposed', 'CANCEL(buyer)': 'cancel_proposed' },
  },
  {
    state: 'cancel_proposed',
    from: () => drive('ACCEPT', 'CANCEL(seller)'),
    allowed: { 'CANCEL(buyer)': 'canceled', 'WITHDRAW(seller)': 'accepted' },
  },
  {
    state: 'cancel_proposed',
    from: () => drive('ACCEPT', 'CANCEL(buyer)'),
    allowed: { 'CANCEL(seller)': 'canceled', 'WITHDRAW(buyer)': 'accepted' },
  },
  { state: 'canceled', from: () => drive('ACCEPT', 'CANCEL(buyer)', 'CANCEL(seller)'), allowed: {} },
  { state: 'completed', from: () => drive('ACCEPT', 'COMPLETE'), allowed: {} },
];
const CASES = TABLE.flatMap((row) =>
  EVENTS.map((event) => ({ state: row.state, from: row.from, event, name: label(event), expected: row.allowed[label(event)] })),
);

describe('allowed and refused events per state', () => {
  // Checked against the machine itself, not the table: a state or an event the machine gains
  // and the table lacks fails here.
  it('table covers every reachable state and every event the machine takes', () => {
    const reachable = getShortestPaths(orderMachine, { events: EVENTS }).map((p) => stateName(p.state.value));
    expect(TABLE.map((row) => orderView(row.from()).state)).toEqual(TABLE.map((row) => row.state));
    expect(new Set(TABLE.map((row) => stateName(row.from().value)))).toEqual(new Set(reachable));
    expect(new Set(TABLE.map((row) => row.state))).toEqual(new Set(Object.keys(orderMachine.states)));
    const machineEvents = orderMachine.events.filter((type) => !type.startsWith('xstate.'));
    expect(new Set(EVENTS.map((e) => e.type))).toEqual(new Set(machineEvents));
  });

  it.each(CASES)('$state: $name → $expected', ({ state, from, event, expected }) => {
    const result = applyOrderEvent(from(), event);
    if (expected === undefined) {
      expect(result).toMatchObject({ ok: false, view: { state } });
      if (!result.ok) expect(result.reason).toMatch(new RegExp(`^order is ${state}`));
    } else {
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.view.state).toBe(expected);
    }
  });
});
