import { graphlib, layout } from '@dagrejs/dagre';
import type { MachineEdge, MachineGraph, MachineNode } from './machine-graph.ts';
import { clipEnd, clipStart, columnsOf, route, spreadPorts, type Box, type Link, type Point } from './edge-route.ts';
import { textWidth } from './text-width.ts';

export type { Box, Point };

/**
 * Where everything of a machine diagram goes, as dagre lays it out: states and their
 * transitions top to bottom, a compound or parallel state (and each region of a parallel one)
 * as a cluster around its states. Dagre places the transitions' labels too, beside their
 * lines, so no label covers a line, a state or another label. machine-svg.ts draws the result.
 */

export interface StateShape {
  node: MachineNode;
  box: Box;
  /** A state drawn around others: compound, parallel, or a region of a parallel state. */
  cluster: boolean;
  region: boolean;
  /** Where the name goes (and, below it, the transitions that stay in the state). */
  head: Box;
  /** Transitions that run an action and stay in the state ("MOBILE_TRANSFER (stays)"), UML's internal transitions. */
  stays: string[];
}

export interface EdgeShape {
  edge: MachineEdge;
  points: Point[];
  label: { lines: string[]; box: Box } | undefined;
}

export interface MachineLayout {
  width: number;
  height: number;
  states: StateShape[];
  edges: EdgeShape[];
  /** The line from the initial dot to the state the machine starts in. */
  start: Point[];
}

/**
 * What this module uses of a dagre graph. Dagre's own declarations import their siblings without
 * file extensions, which NodeNext resolution does not follow, so TypeScript sees them as `any`.
 */
interface EdgeLabel {
  width?: number;
  height?: number;
  weight?: number;
  labelpos?: 'l' | 'c' | 'r';
  labeloffset?: number;
  x?: number;
  y?: number;
  points?: Point[];
}
interface Graph {
  setGraph(label: { rankdir: 'TB'; nodesep: number; ranksep: number; edgesep: number; marginx: number; marginy: number }): void;
  graph(): { width?: number; height?: number };
  setNode(id: string, label: { width?: number; height?: number }): void;
  node(id: string): { x: number; y: number; width: number; height: number };
  setParent(id: string, parent: string): void;
  children(id: string): string[];
  nodes(): string[];
  setEdge(v: string, w: string, label: EdgeLabel, name: string): void;
  edge(v: string, w: string, name: string): EdgeLabel;
  edges(): Array<{ v: string; w: string; name: string }>;
}

export const FONT_PX = 13;
export const LABEL_PX = 11;
export const LINE_PX = 16;
export const LABEL_LINE_PX = 13;
const PAD = 12;
const LEAF_H = 32;

/** A transition's label: its event, then its guard in words ("[link fits the type]"). */
export function labelLines(edge: MachineEdge): string[] {
  const guard = edge.guard && `[${edge.guard.words ?? edge.guard.name}]`;
  return [edge.event, guard].filter((s): s is string => Boolean(s));
}

const staysLine = (edge: MachineEdge) => `${labelLines(edge).join(' ')} (stays)`;
const widest = (lines: string[], px: number) => Math.max(0, ...lines.map((l) => textWidth(l, px)));

// Dagre lays out nodes, not clusters: a cluster is entered at its head (a node at its top) and
// left from its foot (an unseen node at its bottom); the lines are cut where they cross its border.
const head = (id: string) => `${id}\u0000head`;
const foot = (id: string) => `${id}\u0000foot`;
const START = '\u0000start';
const isCluster = (n: MachineNode) => n.children.length > 0;
const entry = (n: MachineNode) => (isCluster(n) ? head(n.id) : n.id);
const exit = (n: MachineNode) => (isCluster(n) ? foot(n.id) : n.id);
const leaves = (n: MachineNode): MachineNode[] => (isCluster(n) ? n.children.flatMap(leaves) : [n]);

export function machineLayout(graph: MachineGraph): MachineLayout {
  const g: Graph = new graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 32, edgesep: 14, marginx: 16, marginy: 16 });
  const nodes = new Map<string, MachineNode>();
  const parents = new Map<string, MachineNode>();
  const stays = new Map<string, string[]>();
  for (const e of graph.edges) if (e.targetless) stays.set(e.from, [...(stays.get(e.from) ?? []), staysLine(e)]);
  const leaving = new Set(graph.edges.filter((e) => !e.targetless).map((e) => e.from));

  const add = (n: MachineNode, parent: MachineNode | undefined) => {
    nodes.set(n.id, n);
    if (parent) parents.set(n.id, parent);
    const lines = stays.get(n.id) ?? [];
    const size = {
      // A leaf's name has room for the mark of the current state (machine-svg.ts).
      width: Math.max(widest([isCluster(n) ? n.key : `${n.key} ●`], FONT_PX), widest(lines, LABEL_PX)) + 2 * PAD,
      height: (isCluster(n) ? LINE_PX + 8 : LEAF_H) + lines.length * LINE_PX,
    };
    if (!isCluster(n)) {
      g.setNode(n.id, { ...size, width: Math.max(72, size.width) });
      if (parent && parent !== graph.root) g.setParent(n.id, parent.id);
      return;
    }
    g.setNode(n.id, {});
    if (parent && parent !== graph.root) g.setParent(n.id, parent.id);
    g.setNode(head(n.id), size);
    g.setParent(head(n.id), n.id);
    for (const c of n.children) {
      add(c, n);
      // Unseen edges that hold the head before everything in the cluster.
      g.setEdge(head(n.id), entry(c), { width: 0, height: 0, weight: 0 }, 'order');
    }
    if (!leaving.has(n.id)) return;
    // And the foot after everything, where the transitions out of the cluster start.
    g.setNode(foot(n.id), { width: 1, height: 1 });
    g.setParent(foot(n.id), n.id);
    for (const leaf of leaves(n)) g.setEdge(leaf.id, foot(n.id), { width: 0, height: 0, weight: 0 }, 'order');
  };
  for (const n of graph.root.children) add(n, graph.root);

  const first = nodes.get(graph.initial);
  if (first) {
    g.setNode(START, { width: 12, height: 12 });
    g.setEdge(START, entry(first), { width: 0, height: 0 }, 'start');
  }
  const drawn = graph.edges.filter((e) => !e.targetless && nodes.has(e.from) && nodes.has(e.to));
  drawn.forEach((e, i) => {
    const lines = labelLines(e);
    const size = lines.length ? { width: widest(lines, LABEL_PX) + 4, height: lines.length * LABEL_LINE_PX + 4 } : { width: 0, height: 0 };
    // A state with one way in is drawn next to the state it is entered from.
    const weight = drawn.filter((d) => d.to === e.to).length === 1 ? 2 : 1;
    g.setEdge(exit(nodes.get(e.from)!), entry(nodes.get(e.to)!), { ...size, weight, labelpos: 'r', labeloffset: 8 }, `t${i}`);
  });
  layout(g);

  const boxOf = (id: string): Box => {
    const n = g.node(id);
    return { x: n.x - n.width / 2, y: n.y - n.height / 2, w: n.width, h: n.height };
  };
  const labelBox = (d: EdgeLabel): Box => ({ x: d.x! - d.width! / 2, y: d.y! - d.height! / 2, w: d.width!, h: d.height! });
  // edge-route.ts takes ranks along x; these go down, so it gets the drawing turned a quarter.
  const turnBox = (b: Box): Box => ({ x: b.y, y: b.x, w: b.h, h: b.w });
  const turn = (p: Point): Point => ({ x: p.y, y: p.x });
  const placed = g.nodes().filter((id) => g.children(id).length === 0);
  const columns = columnsOf([
    ...placed.map((id) => turnBox(boxOf(id))),
    ...g.edges().flatMap((k) => (g.edge(k.v, k.w, k.name).width ? [turnBox(labelBox(g.edge(k.v, k.w, k.name)))] : [])),
  ]);
  const states: StateShape[] = [...nodes.values()].map((n) => ({
    node: n,
    box: boxOf(n.id),
    cluster: isCluster(n),
    region: parents.get(n.id)?.type === 'parallel',
    // Nothing of the cluster shares its head's rank, so the name can sit in the middle of it.
    head: isCluster(n) ? { ...boxOf(head(n.id)), x: boxOf(n.id).x + (boxOf(n.id).w - boxOf(head(n.id)).w) / 2 } : boxOf(n.id),
    stays: stays.get(n.id) ?? [],
  }));
  const clusterBox = (n: MachineNode) => (isCluster(n) ? boxOf(n.id) : undefined);
  const links: Link[] = drawn.map((e, i) => ({ v: exit(nodes.get(e.from)!), w: entry(nodes.get(e.to)!), name: `t${i}` }));
  if (first) links.push({ v: START, w: entry(first), name: 'start' });
  const pointsOf = (k: Link) => (g.edge(k.v, k.w, k.name).points ?? []).map(turn);
  const ports = spreadPorts(
    links.map((k) => ({ ...k, points: pointsOf(k) })),
    (id) => turnBox(boxOf(id)),
  );
  const line = (k: Link, from: MachineNode | undefined, to: MachineNode) => {
    const turned = route(pointsOf(k), turnBox(boxOf(k.v)), turnBox(boxOf(k.w)), columns, ports.get(k.name));
    return clipEnd(clipStart(turned.map(turn), from && clusterBox(from)), clusterBox(to));
  };
  const edges: EdgeShape[] = drawn.map((e, i) => {
    const [from, to] = [nodes.get(e.from)!, nodes.get(e.to)!];
    const lines = labelLines(e);
    const label = lines.length ? { lines, box: labelBox(g.edge(links[i]!.v, links[i]!.w, links[i]!.name)) } : undefined;
    return { edge: e, points: line(links[i]!, from, to), label };
  });
  return {
    width: Math.ceil(g.graph().width ?? 0),
    height: Math.ceil(g.graph().height ?? 0),
    states,
    edges,
    start: first ? line(links.at(-1)!, undefined, first) : [],
  };
}
