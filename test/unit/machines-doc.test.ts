import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shipmentMachine } from '../../machines/index.ts';
import { GUARD_PHRASES } from '../../src/ops/guard-phrases.ts';
import { activeStates, machineGraph } from '../../src/ops/machine-graph.ts';
import { machineLayout, type Box, type Point } from '../../src/ops/machine-layout.ts';
import { machineSvg } from '../../src/ops/machine-svg.ts';
import { DRAWN_MACHINES, machinesDocFiles } from '../../src/ops/machines-doc.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('machine diagrams', () => {
  it.each(Object.keys(machinesDocFiles()))('%s is what machines/ generates (npm run docs:machines)', (file) => {
    expect(readFileSync(path.join(root, file), 'utf8'), `${file} is stale: run npm run docs:machines`).toBe(machinesDocFiles()[file]);
  });

  it('reads every state and transition of the shipment machine', () => {
    const g = machineGraph(shipmentMachine);
    const edge = (from: string, to: string) => g.edges.filter((e) => e.from === from && e.to === to).map((e) => e.label);
    expect(edge('start', 'tbd')).toEqual(['[type TBD]']);
    expect(edge('tbd', 'pending')).toEqual(['MOBILE_TRANSFER', 'MAIL']);
    expect(edge('pending', 'in_transit')).toEqual(['SHIP [shipsTracked]', 'SCAN [carried]']);
    expect(edge('in_transit', 'delivered')).toEqual(['SCAN [scanDelivered]']);
    expect(edge('exception', 'in_transit')).toEqual(['RESHIP', 'SCAN [carried]']);
    expect(edge('returned', 'in_transit')).toEqual(['RESHIP']);
    expect(edge('delivered', 'in_transit')).toEqual([]);
    expect(edge('pending', 'delivered')).toEqual(['COMPLETE [linkFitsType]', 'SCAN [scanDelivered]']);
    expect(edge('localPickup', 'pending')).toEqual(['MOBILE_TRANSFER [leavesPickup]']);
    expect(edge('localPickup', 'delivered')).toEqual(['done']);
    expect(edge('localPickup.seller.awaiting', 'localPickup.seller.supplied')).toEqual(['SELLER_PICKUP']);
    expect(g.edges.find((e) => e.from === 'pending' && e.targetless)?.label).toBe('MOBILE_TRANSFER');
    const words = (from: string, to: string) => g.edges.filter((e) => e.from === from && e.to === to).map((e) => e.guard?.words);
    expect(words('pending', 'delivered')).toEqual(['link fits the type', 'delivered scan']);
    expect(words('start', 'tbd')).toEqual(['type is TBD']);
    expect(words('start', 'pending')).toEqual(['otherwise']);
  });

  it.each(Object.entries(DRAWN_MACHINES))('has words for every guard of the %s machine (guard-phrases.ts)', (_name, machine) => {
    const missing = machineGraph(machine)
      .edges.filter((e) => e.guard && !e.guard.words)
      .map((e) => e.guard!.name);
    expect(missing, 'add these guards to GUARD_PHRASES').toEqual([]);
    const svg = machineSvg(machineGraph(machine));
    for (const name of Object.keys(GUARD_PHRASES)) expect(svg).not.toContain(`[${name}]`);
  });

  it('marks the active states of a snapshot value, parents included', () => {
    const active = activeStates({ localPickup: { seller: 'supplied', buyer: 'awaiting' } });
    expect([...active].sort()).toEqual([
      'localPickup',
      'localPickup.buyer',
      'localPickup.buyer.awaiting',
      'localPickup.seller',
      'localPickup.seller.supplied',
    ]);
    const svg = machineSvg(machineGraph(shipmentMachine), active);
    expect(svg).toContain('class="state atomic active" data-state="localPickup.buyer.awaiting"');
    expect(svg).toContain('class="state final active" data-state="localPickup.seller.supplied"');
    expect(svg).toContain('class="state atomic" data-state="pending"');
    expect(svg).not.toMatch(/<script|href="http/);
  });
});

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const contains = (outer: Box, inner: Box) =>
  inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
const shrink = (b: Box, by: number): Box => ({ x: b.x + by, y: b.y + by, w: b.w - 2 * by, h: b.h - 2 * by });

/** Whether the segment a–b passes through the inside of the box (clipped to it, Liang–Barsky). */
function crosses(box: Box, a: Point, b: Point): boolean {
  let t0 = 0;
  let t1 = 1;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  for (const [p, q] of [
    [-dx, a.x - box.x],
    [dx, box.x + box.w - a.x],
    [-dy, a.y - box.y],
    [dy, box.y + box.h - a.y],
  ] as const) {
    if (p === 0) {
      if (q <= 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 >= t1) return false;
  }
  return true;
}

const segments = (points: Point[]) => points.slice(1).map((p, i) => [points[i]!, p] as const);

describe.each(Object.entries(DRAWN_MACHINES))('the %s diagram, in its layout coordinates', (_name, machine) => {
  const layout = machineLayout(machineGraph(machine));
  const leaves = layout.states.filter((s) => !s.cluster);
  const clusters = layout.states.filter((s) => s.cluster);
  const labels = layout.edges.flatMap((e) => (e.label ? [{ name: `${e.edge.from} ${e.edge.label}`, box: e.label.box }] : []));
  const lines = [
    ...layout.edges.map((e) => ({ name: `${e.edge.from} -> ${e.edge.to}`, points: e.points })),
    { name: 'start', points: layout.start },
  ];

  it('puts no label over a state, a state name or another label', () => {
    const clashes: string[] = [];
    labels.forEach((label, i) => {
      for (const s of leaves) if (overlaps(label.box, s.box)) clashes.push(`${label.name} / state ${s.node.id}`);
      for (const s of clusters) if (overlaps(label.box, s.head)) clashes.push(`${label.name} / name of ${s.node.id}`);
      for (const other of labels.slice(i + 1)) if (overlaps(label.box, other.box)) clashes.push(`${label.name} / ${other.name}`);
    });
    expect(clashes).toEqual([]);
  });

  it('draws no line through a label, and puts no label across the border of a cluster', () => {
    const clashes: string[] = [];
    for (const label of labels) {
      for (const line of lines)
        for (const [a, b] of segments(line.points)) if (crosses(label.box, a, b)) clashes.push(`${label.name} / ${line.name}`);
      for (const c of clusters)
        if (overlaps(label.box, c.box) && !contains(c.box, label.box)) clashes.push(`${label.name} / border of ${c.node.id}`);
    }
    expect(clashes).toEqual([]);
  });

  it('draws no line through a state other than its own two, nor through a state name', () => {
    const clashes: string[] = [];
    for (const line of lines)
      for (const s of layout.states) {
        const own = line.name === 'start' ? [] : line.name.split(' -> ');
        const box = s.cluster ? s.head : s.box;
        if (own.includes(s.node.id) && !s.cluster) continue;
        // Lines end on a state's border: only its inside counts.
        if (segments(line.points).some(([a, b]) => crosses(shrink(box, 1), a, b))) clashes.push(`${line.name} / ${s.node.id}`);
      }
    expect(clashes).toEqual([]);
  });

  it('holds every state of a cluster (a region of a parallel state) inside it', () => {
    const outside: string[] = [];
    for (const c of clusters) {
      if (!contains(c.box, c.head)) outside.push(`name of ${c.node.id}`);
      for (const child of c.node.children) {
        const shape = layout.states.find((s) => s.node === child)!;
        if (!contains(shrink(c.box, 4), shape.box)) outside.push(`${child.id} outside ${c.node.id}`);
      }
    }
    expect(outside).toEqual([]);
    expect(clusters.filter((c) => c.region).length).toBe(machine.id === 'shipment' ? 2 : 0);
  });

  it('ends every line on the border of its states (or of the cluster it enters or leaves)', () => {
    const near = (p: Point, b: Box) =>
      p.x >= b.x - 1 && p.x <= b.x + b.w + 1 && p.y >= b.y - 1 && p.y <= b.y + b.h + 1 && !crosses(shrink(b, 1), p, p);
    for (const e of layout.edges) {
      const from = layout.states.find((s) => s.node.id === e.edge.from)!;
      const to = layout.states.find((s) => s.node.id === e.edge.to)!;
      expect(near(e.points[0]!, from.box), `${e.edge.label} starts on ${from.node.id}`).toBe(true);
      expect(near(e.points.at(-1)!, to.box), `${e.edge.label} ends on ${to.node.id}`).toBe(true);
    }
  });
});
