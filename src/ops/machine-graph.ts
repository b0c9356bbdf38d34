import type { AnyStateMachine, StateValue } from 'xstate';
import { comparisonPhrase, guardPhrase } from './guard-phrases.ts';

/** A state of a machine, read from its definition; ids are dotted paths below the root ("localPickup.seller.awaiting"). */
export interface MachineNode {
  id: string;
  key: string;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  children: MachineNode[];
  /** The child a compound state starts in. */
  initial?: string;
}

/** A transition; a targetless one (an action, no change of state) has to === from. */
export interface MachineEdge {
  from: string;
  to: string;
  /** Event and guard as the code names them: "COMPLETE [linkFitsType]" (docs/MACHINES.md's table). */
  label: string;
  targetless: boolean;
  /** The event ("done" for a parallel state's completion); none for an eventless (`always`) branch. */
  event?: string;
  /** The guard in words (guard-phrases.ts); a guard with no words keeps its code name here. */
  guard?: { name: string; words: string | undefined };
}

export interface MachineGraph {
  name: string;
  root: MachineNode;
  /** The top-level state the machine starts in. */
  initial: string;
  edges: MachineEdge[];
}

interface XStateNode {
  id: string;
  key: string;
  type: MachineNode['type'];
  states: Record<string, XStateNode>;
  initial?: { target?: XStateNode[] };
  transitions: Map<string, Array<{ target?: XStateNode[]; guard?: unknown; eventType: string }>>;
  always?: Array<{ target?: XStateNode[]; guard?: unknown }>;
}

/**
 * A guard's name: a named guard by its name; an inline one by the condition it compares
 * (the machines compare the shipment type: `context.type === 'TBD'` is "type TBD"), else
 * "guarded". Its words come from guard-phrases.ts.
 */
function guardOf(guard: unknown): MachineEdge['guard'] {
  if (guard === undefined) return undefined;
  let name = 'guarded';
  if (typeof guard === 'string') name = guard;
  else if (typeof guard === 'object' && guard && 'type' in guard) name = String((guard as { type: unknown }).type);
  else if (typeof guard === 'function') {
    const compared = /context\.(\w+)\s*===\s*["']([^"']+)["']/.exec(guard.toString());
    if (compared) return { name: `${compared[1]} ${compared[2]}`, words: comparisonPhrase(compared[1]!, compared[2]!) };
  }
  return { name, words: guardPhrase(name) };
}

function eventLabel(eventType: string): string {
  return eventType.startsWith('xstate.done.state.') ? 'done' : eventType;
}

/** Reads states and transitions from an XState v5 machine definition (no running actor). */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const rootId = machine.root.id;
  const rel = (n: XStateNode) => n.id.slice(rootId.length + 1);
  const edges: MachineEdge[] = [];

  const visit = (n: XStateNode): MachineNode => {
    const id = rel(n);
    for (const [eventType, list] of n.transitions) {
      for (const t of list) {
        const guard = guardOf(t.guard);
        const event = eventLabel(eventType);
        const label = `${event}${guard ? ` [${guard.name}]` : ''}`;
        const about = { label, event, ...(guard ? { guard } : {}) };
        if (!t.target?.length) edges.push({ from: id, to: id, targetless: true, ...about });
        else for (const target of t.target) edges.push({ from: id, to: rel(target), targetless: false, ...about });
      }
    }
    const always = n.always ?? [];
    always.forEach((t, i) => {
      // An unguarded last branch is what the others leave over.
      const guard = guardOf(t.guard) ?? (i > 0 ? { name: 'otherwise', words: guardPhrase('otherwise') } : undefined);
      const label = guard ? `[${guard.name}]` : 'always';
      for (const target of t.target ?? []) edges.push({ from: id, to: rel(target), label, targetless: false, ...(guard ? { guard } : {}) });
    });
    const children = Object.values(n.states).map(visit);
    const initial = n.initial?.target?.[0];
    return { id, key: n.key, type: n.type, children, ...(initial && n.type === 'compound' ? { initial: rel(initial) } : {}) };
  };

  const root = visit(machine.root as unknown as XStateNode);
  return { name: rootId, root, initial: root.initial ?? root.children[0]!.id, edges };
}

/** The ids of every active state of a snapshot's value, parents included ("localPickup", "localPickup.seller", …). */
export function activeStates(value: StateValue | undefined, prefix = ''): Set<string> {
  const out = new Set<string>();
  if (value === undefined || value === null) return out;
  if (typeof value === 'string') {
    out.add(`${prefix}${value}`);
    return out;
  }
  for (const [key, child] of Object.entries(value)) {
    out.add(`${prefix}${key}`);
    for (const id of activeStates(child as StateValue, `${prefix}${key}.`)) out.add(id);
  }
  return out;
}

/** A machine's states and transitions as a Mermaid stateDiagram (docs/MACHINES.md). */
export function toMermaid(graph: MachineGraph): string {
  const mid = (id: string) => id.replace(/\./g, '_');
  const lines = ['stateDiagram-v2'];
  const emit = (node: MachineNode, indent: string) => {
    for (const child of node.children) {
      const isGroup = child.children.length > 0;
      if (isGroup) {
        lines.push(`${indent}state "${child.key}" as ${mid(child.id)} {`);
        child.children.forEach((region, i) => {
          if (child.type === 'parallel') {
            if (i > 0) lines.push(`${indent}  --`);
            lines.push(`${indent}  state "${region.key}" as ${mid(region.id)} {`);
            emitRegion(region, `${indent}    `);
            lines.push(`${indent}  }`);
          }
        });
        if (child.type !== 'parallel') emitRegion(child, `${indent}  `);
        lines.push(`${indent}}`);
      } else {
        lines.push(`${indent}state "${child.key}" as ${mid(child.id)}`);
      }
    }
  };
  const emitRegion = (region: MachineNode, indent: string) => {
    for (const s of region.children) lines.push(`${indent}state "${s.key}" as ${mid(s.id)}`);
    if (region.initial) lines.push(`${indent}[*] --> ${mid(region.initial)}`);
    for (const s of region.children) if (s.type === 'final') lines.push(`${indent}${mid(s.id)} --> [*]`);
    for (const e of graph.edges) {
      if (region.children.some((s) => s.id === e.from) && region.children.some((s) => s.id === e.to)) {
        lines.push(`${indent}${mid(e.from)} --> ${mid(e.to)}: ${e.label}`);
      }
    }
  };
  emit(graph.root, '  ');
  lines.push(`  [*] --> ${mid(graph.initial)}`);
  for (const s of graph.root.children) if (s.type === 'final') lines.push(`  ${mid(s.id)} --> [*]`);
  const inner = new Set<string>();
  const collect = (n: MachineNode) => n.children.forEach((c) => (inner.add(c.id), collect(c)));
  graph.root.children.forEach(collect);
  for (const e of graph.edges) {
    // A transition of the machine itself (from '') leaves each top-level state that is not final.
    if (e.from === '') {
      for (const s of graph.root.children) if (s.type !== 'final') lines.push(`  ${mid(s.id)} --> ${mid(e.to)}: ${e.label}`);
      continue;
    }
    if (inner.has(e.from) && inner.has(e.to) && e.from.split('.').slice(0, -1).join('.') === e.to.split('.').slice(0, -1).join('.'))
      continue;
    lines.push(`  ${mid(e.from)} --> ${mid(e.to)}: ${e.label}${e.targetless ? ' (stays)' : ''}`);
  }
  return lines.join('\n');
}
