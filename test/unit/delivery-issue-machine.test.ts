import { describe, expect, it } from 'vitest';
import { getShortestPaths, getSimplePaths } from 'xstate/graph';
import {
  applyIssueEvent,
  deliveryIssueMachine,
  initialIssueSnapshot,
  issueState,
  type DeliveryIssueEvent,
  type PersistedIssue,
} from '../../machines/delivery-issue.ts';

const EVENTS: DeliveryIssueEvent[] = [
  { type: 'RESPOND' },
  { type: 'RESOLVE' },
  { type: 'ESCALATE', by: 'buyer' },
  { type: 'ESCALATE', by: 'system' },
  { type: 'CLOSE' },
];
const label = (e: DeliveryIssueEvent) => ('by' in e ? `${e.type}(${e.by})` : e.type);
const byLabel = new Map(EVENTS.map((e) => [label(e), e]));

function drive(...events: string[]): PersistedIssue {
  let snapshot = initialIssueSnapshot();
  for (const name of events) {
    const result = applyIssueEvent(snapshot, byLabel.get(name)!);
    if (!result.ok) throw new Error(`setup step ${name} refused: ${result.reason}`);
    snapshot = result.snapshot;
  }
  return snapshot;
}

describe('delivery issue graph paths', () => {
  const generators = { getShortestPaths, getSimplePaths };
  it.each(Object.keys(generators) as (keyof typeof generators)[])('%s replay through applyIssueEvent', (name) => {
    const paths = generators[name](deliveryIssueMachine, { events: EVENTS });
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) {
      let snapshot = initialIssueSnapshot();
      expect(path.steps[0]?.event.type as string).toBe('xstate.init');
      for (const [index, step] of path.steps.entries()) {
        if (index > 0) {
          const result = applyIssueEvent(snapshot, step.event);
          expect(result.ok, label(step.event)).toBe(true);
          if (result.ok) snapshot = result.snapshot;
        }
        expect(snapshot.value).toEqual(step.state.value);
      }
      expect(snapshot.value).toEqual(path.state.value);
    }
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(['open', 'seller_responded', 'resolved', 'escalated', 'closed']));
  });

  it('simple paths include every way to each end: answered or not, escalated by the buyer or the system', () => {
    const ends = getSimplePaths(deliveryIssueMachine, { events: EVENTS }).map((p) =>
      p.steps
        .slice(1)
        .map((s) => label(s.event))
        .join(' → '),
    );
    expect(ends).toEqual(
      expect.arrayContaining([
        'RESPOND → RESOLVE',
        'ESCALATE(system) → CLOSE',
        'ESCALATE(buyer) → CLOSE',
        'RESPOND → ESCALATE(buyer) → CLOSE',
        'ESCALATE(system) → RESOLVE',
      ]),
    );
  });
});

// For each state, where each allowed event leads; any event missing from `allowed` is refused.
const TABLE: { state: string; from: () => PersistedIssue; allowed: Record<string, string> }[] = [
  {
    state: 'open',
    from: () => drive(),
    allowed: { RESPOND: 'seller_responded', RESOLVE: 'resolved', 'ESCALATE(buyer)': 'escalated', 'ESCALATE(system)': 'escalated' },
  },
  {
    state: 'seller_responded',
    from: () => drive('RESPOND'),
    allowed: { RESPOND: 'seller_responded', RESOLVE: 'resolved', 'ESCALATE(buyer)': 'escalated' },
  },
  { state: 'escalated', from: () => drive('ESCALATE(system)'), allowed: { CLOSE: 'closed', RESOLVE: 'resolved' } },
  { state: 'resolved', from: () => drive('RESOLVE'), allowed: {} },
  { state: 'closed', from: () => drive('ESCALATE(buyer)', 'CLOSE'), allowed: {} },
];
const CASES = TABLE.flatMap((row) =>
  EVENTS.map((event) => ({ state: row.state, from: row.from, event, name: label(event), expected: row.allowed[label(event)] })),
);

describe('allowed and refused events per state', () => {
  it('table covers every state and every event the machine takes', () => {
    expect(TABLE.map((row) => issueState(row.from()))).toEqual(TABLE.map((row) => row.state));
    expect(new Set(TABLE.map((row) => row.state))).toEqual(new Set(Object.keys(deliveryIssueMachine.states)));
    const machineEvents = deliveryIssueMachine.events.filter((type) => !type.startsWith('xstate.'));
    expect(new Set(EVENTS.map((e) => e.type))).toEqual(new Set(machineEvents));
  });

  it.each(CASES)('$state: $name → $expected', ({ state, from, event, expected }) => {
    const result = applyIssueEvent(from(), event);
    if (expected === undefined) {
      expect(result).toMatchObject({ ok: false, state });
      if (!result.ok) expect(result.reason).toMatch(new RegExp(`^delivery issue is ${state}`));
    } else {
      expect(result).toMatchObject({ ok: true, state: expected });
    }
  });

  it('rehydrates a JSON round-tripped snapshot', () => {
    const stored: PersistedIssue = JSON.parse(JSON.stringify(drive('RESPOND')));
    expect(applyIssueEvent(stored, { type: 'RESOLVE' })).toMatchObject({ ok: true, state: 'resolved' });
    expect(() => issueState({ status: 'active', value: 'nowhere' })).toThrow(/no valid state/);
  });
});
