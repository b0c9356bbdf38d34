import { escapeHtml } from './html.ts';
import type { MachineEdge, MachineGraph, MachineNode } from './machine-graph.ts';

/**
 * Draws a machine graph as a self-contained SVG (no script, no external asset): top-level states
 * in columns by their longest distance from the initial state, a parallel state as a box holding
 * one row per region. Active states are filled, so the diagram shows where a shipment is.
 */

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const CHAR_W = 7.2;
const NODE_H = 34;
const PAD = 14;
const COL_GAP = 150;
const ROW_GAP = 80;
const HEADER = 24;

function textWidth(s: string): number {
  return s.length * CHAR_W;
}

/** Longest-path ranks over the forward edges among the given nodes (back edges found by DFS are ignored). */
function ranks(nodes: MachineNode[], edges: MachineEdge[], start: string | undefined): Map<string, number> {
  const ids = new Set(nodes.map((n) => n.id));
  const owner = (id: string) => [...ids].find((n) => id === n || id.startsWith(`${n}.`));
  const out = new Map<string, string[]>();
  for (const e of edges) {
    const a = owner(e.from);
    const b = owner(e.to);
    if (a && b && a !== b) out.set(a, [...(out.get(a) ?? []), b]);
  }
  const order: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const back = new Set<string>();
  const dfs = (n: string) => {
    state.set(n, 'open');
    for (const m of out.get(n) ?? []) {
      if (state.get(m) === 'open') back.add(`${n}>${m}`);
      else if (!state.has(m)) dfs(m);
    }
    state.set(n, 'done');
    order.unshift(n);
  };
  if (start && ids.has(start)) dfs(start);
  for (const n of ids) if (!state.has(n)) dfs(n);
  const rank = new Map<string, number>([...ids].map((n) => [n, 0]));
  for (const n of order)
    for (const m of out.get(n) ?? []) if (!back.has(`${n}>${m}`)) rank.set(m, Math.max(rank.get(m)!, rank.get(n)! + 1));
  return rank;
}

/** Sizes and places every node; returns boxes by id, relative to (0,0). */
function layout(
  children: MachineNode[],
  edges: MachineEdge[],
  start: string | undefined,
  boxes: Map<string, Box>,
  ox: number,
  oy: number,
): { w: number; h: number } {
  const sizes = new Map<string, { w: number; h: number }>();
  const measure = (n: MachineNode): { w: number; h: number } => {
    if (n.children.length === 0) return { w: Math.max(80, textWidth(n.key) + 2 * PAD), h: NODE_H };
    // A parallel state stacks its regions; a compound one lays its children out in a row.
    const inner = new Map<string, Box>();
    if (n.type === 'parallel') {
      let h = HEADER;
      let w = textWidth(n.key) + 2 * PAD;
      for (const region of n.children) {
        const r = layout(region.children, edges, region.initial, inner, 0, 0);
        w = Math.max(w, r.w + 2 * PAD);
        h += r.h + HEADER + PAD;
      }
      return { w, h };
    }
    const r = layout(n.children, edges, n.initial, inner, 0, 0);
    return { w: Math.max(r.w + 2 * PAD, textWidth(n.key) + 2 * PAD), h: r.h + HEADER + PAD };
  };
  for (const n of children) sizes.set(n.id, measure(n));
  const rank = ranks(children, edges, start);
  const columns: MachineNode[][] = [];
  for (const n of children) (columns[rank.get(n.id)!] ??= []).push(n);
  const colW = columns.map((col) => Math.max(...col.map((n) => sizes.get(n.id)!.w)));
  const colH = columns.map((col) => col.reduce((h, n) => h + sizes.get(n.id)!.h, 0) + ROW_GAP * (col.length - 1));
  const height = Math.max(...colH);
  let x = ox;
  columns.forEach((col, c) => {
    let y = oy + (height - colH[c]!) / 2;
    for (const n of col) {
      const s = sizes.get(n.id)!;
      const box = { x: x + (colW[c]! - s.w) / 2, y, w: s.w, h: s.h };
      boxes.set(n.id, box);
      placeChildren(n, box, edges, boxes);
      y += s.h + ROW_GAP;
    }
    x += colW[c]! + COL_GAP;
  });
  return { w: x - COL_GAP - ox, h: height };
}

function placeChildren(n: MachineNode, box: Box, edges: MachineEdge[], boxes: Map<string, Box>): void {
  if (n.children.length === 0) return;
  if (n.type === 'parallel') {
    let y = box.y + HEADER;
    for (const region of n.children) {
      const probe = new Map<string, Box>();
      const r = layout(region.children, edges, region.initial, probe, 0, 0);
      const rx = box.x + (box.w - r.w) / 2;
      boxes.set(region.id, { x: box.x + PAD / 2, y, w: box.w - PAD, h: r.h + HEADER });
      layout(region.children, edges, region.initial, boxes, rx, y + HEADER);
      y += r.h + HEADER + PAD;
    }
    return;
  }
  const probe = new Map<string, Box>();
  const r = layout(n.children, edges, n.initial, probe, 0, 0);
  layout(n.children, edges, n.initial, boxes, box.x + (box.w - r.w) / 2, box.y + HEADER);
}

/** Where the line from a box's centre towards (tx, ty) leaves the box. */
function exitPoint(b: Box, tx: number, ty: number): [number, number] {
  const cx = b.x + b.w / 2;
  const cy = b.y + b.h / 2;
  const dx = tx - cx;
  const dy = ty - cy;
  if (dx === 0 && dy === 0) return [cx, cy];
  const scale = Math.min(Math.abs(b.w / 2 / (dx || 1e-9)), Math.abs(b.h / 2 / (dy || 1e-9)));
  return [cx + dx * scale, cy + dy * scale];
}

/** Whether one state is the other, or inside it, or around it. */
function related(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/** Whether the segment passes through the box (sampled: the boxes are large next to the step). */
function crosses(b: Box, x1: number, y1: number, x2: number, y2: number): boolean {
  for (let i = 1; i < 40; i++) {
    const x = x1 + ((x2 - x1) * i) / 40;
    const y = y1 + ((y2 - y1) * i) / 40;
    if (x > b.x + 2 && x < b.x + b.w - 2 && y > b.y + 2 && y < b.y + b.h - 2) return true;
  }
  return false;
}

const LABEL_CHAR_W = 6.6;
const LABEL_H = 14;

/** The box a label's text takes when drawn centred at x with its baseline at y (11px). */
function labelBox(text: string, x: number, y: number): Box {
  const w = text.length * LABEL_CHAR_W + 4;
  return { x: x - w / 2, y: y - LABEL_H + 3, w, h: LABEL_H };
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/**
 * Labels go where they hide nothing: the first of the candidate spots (along the edge, from its
 * middle outwards, each just above or below the line) whose box overlaps no state's name and no
 * label placed before it. The browser test measures the drawn text and holds the result to it.
 */
function placeLabel(text: string, spots: Array<[number, number]>, taken: Box[]): [number, number] {
  const free = spots.find(([x, y]) => !taken.some((t) => overlaps(labelBox(text, x, y), t))) ?? spots[0]!;
  taken.push(labelBox(text, free[0], free[1]));
  return free;
}

/** Spots along a path given as a function of t in [0, 1]: the middle first, then outwards, above and below. */
function spotsAlong(at: (t: number) => [number, number]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const t of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.15, 0.85])
    for (const dy of [-5, 15, -19, 29]) {
      const [x, y] = at(t);
      out.push([x, y + dy]);
    }
  return out;
}

const cubic = (p0: number, p1: number, p2: number, p3: number, t: number) =>
  (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3;

export function machineSvg(graph: MachineGraph, active: Set<string> = new Set(), title = graph.name): string {
  const e = escapeHtml;
  const boxes = new Map<string, Box>();
  const margin = 30;
  const size = layout(graph.root.children, graph.edges, graph.initial, boxes, margin + 30, margin + 40);
  const width = size.w + 2 * margin + 30;
  const height = size.h + 2 * margin + 110;
  const out: string[] = [];
  const all: MachineNode[] = [];
  const flat = (n: MachineNode) => n.children.forEach((c) => (all.push(c), flat(c)));
  flat(graph.root);

  // What a label must not cover: every state's name (a leaf's whole box).
  const taken: Box[] = [];
  for (const n of all) {
    const b = boxes.get(n.id);
    if (!b) continue;
    if (n.children.length === 0) taken.push(b);
    else taken.push({ x: b.x + b.w / 2 - textWidth(n.key) / 2, y: b.y + 3, w: textWidth(n.key), h: 17 });
  }

  for (const n of all) {
    const b = boxes.get(n.id);
    if (!b) continue;
    const on = active.has(n.id);
    const isRegion = !graph.root.children.includes(n) && all.some((p) => p.type === 'parallel' && p.children.includes(n));
    const cls = ['state', n.type, isRegion ? 'region' : '', on ? 'active' : ''].filter(Boolean).join(' ');
    const rx = n.children.length > 0 ? 10 : 17;
    out.push(`<g class="${cls}" data-state="${e(n.id)}"><rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" rx="${rx}"/>`);
    if (n.type === 'final' && n.children.length === 0)
      out.push(`<rect class="inner" x="${b.x + 3}" y="${b.y + 3}" width="${b.w - 6}" height="${b.h - 6}" rx="${rx - 3}"/>`);
    const ty = n.children.length > 0 ? b.y + 16 : b.y + b.h / 2 + 4;
    out.push(`<text x="${b.x + b.w / 2}" y="${ty}">${e(n.key)}${on && n.children.length === 0 ? ' ●' : ''}</text></g>`);
  }

  const start = boxes.get(graph.initial);
  if (start) {
    const sx = start.x - 40;
    const sy = start.y + start.h / 2;
    out.push(
      `<circle class="initial" cx="${sx}" cy="${sy}" r="6"/><line class="edge" x1="${sx + 6}" y1="${sy}" x2="${start.x - 2}" y2="${sy}" marker-end="url(#arrow)"/>`,
    );
  }
  const lowest = Math.max(...[...boxes.values()].map((b) => b.y + b.h));
  const seen = new Map<string, number>();
  for (const edge of graph.edges) {
    const a = boxes.get(edge.from);
    const b = boxes.get(edge.to);
    if (!a || !b) continue;
    const key = `${edge.from}>${edge.to}`;
    const nth = seen.get(key) ?? 0;
    seen.set(key, nth + 1);
    if (edge.targetless) {
      // A self-loop over the top edge; stacked when a state has several.
      const x = a.x + a.w / 2 + nth * 0;
      const top = a.y;
      const lift = 22 + nth * 18;
      out.push(
        `<path class="edge loop" d="M ${x - 16} ${top} C ${x - 30} ${top - lift}, ${x + 30} ${top - lift}, ${x + 16} ${top}" marker-end="url(#arrow)"/>`,
      );
      const [lx, ly] = placeLabel(edge.label, [[x, top - lift + 4], ...spotsAlong((t) => [x - 40 + 80 * t, top - lift - 10])], taken);
      out.push(`<text class="label" x="${lx}" y="${ly}">${e(edge.label)}</text>`);
      continue;
    }
    const [x1, y1] = exitPoint(a, b.x + b.w / 2, b.y + b.h / 2);
    const [x2, y2] = exitPoint(b, a.x + a.w / 2, a.y + a.h / 2);
    const blocked = [...boxes].some(([id, box]) => !related(id, edge.from) && !related(id, edge.to) && crosses(box, x1, y1, x2, y2));
    if (blocked) {
      // A straight line would run through another state: swing below everything instead.
      const [bx1, by1] = [a.x + a.w / 2, a.y + a.h];
      const [bx2, by2] = [b.x + b.w / 2, b.y + b.h];
      const below = lowest + 75 + nth * 16;
      out.push(`<path class="edge" d="M ${bx1} ${by1} C ${bx1} ${below}, ${bx2} ${below}, ${bx2} ${by2}" marker-end="url(#arrow)"/>`);
      const [lx, ly] = placeLabel(
        edge.label,
        spotsAlong((t) => [cubic(bx1, bx1, bx2, bx2, t), cubic(by1, below, below, by2, t)]),
        taken,
      );
      out.push(`<text class="label" x="${lx}" y="${ly}">${e(edge.label)}</text>`);
      continue;
    }
    const offset = nth * 14;
    out.push(`<line class="edge" x1="${x1}" y1="${y1 + offset}" x2="${x2}" y2="${y2 + offset}" marker-end="url(#arrow)"/>`);
    const [lx, ly] = placeLabel(
      edge.label,
      spotsAlong((t) => [x1 + (x2 - x1) * t, y1 + (y2 - y1) * t + offset]),
      taken,
    );
    out.push(`<text class="label" x="${lx}" y="${ly}">${e(edge.label)}</text>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" class="machine" viewBox="0 0 ${Math.ceil(width)} ${Math.ceil(height)}" width="${Math.ceil(width)}" height="${Math.ceil(height)}" role="img" aria-label="${e(title)} state machine">
<title>${e(title)} state machine</title>
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>
<style>
.state rect{fill:#fff;stroke:#667;stroke-width:1.4}
.state.parallel>rect,.state.compound>rect{fill:#f6f7fb}
.state.region>rect{fill:none;stroke-dasharray:4 3}
.state.final>rect.inner{fill:none}
.state.active>rect{stroke:#0b6b3a;stroke-width:2.5}
.state.active.atomic>rect,.state.active.final>rect:first-child{fill:#c9f0d8}
text{font:13px system-ui,sans-serif;text-anchor:middle;fill:#222}
.label{font-size:11px;fill:#444;paint-order:stroke;stroke:#fff;stroke-width:4px}
.edge{stroke:#555;stroke-width:1.2;fill:none}
.initial{fill:#333}
</style>
${out.join('\n')}
</svg>`;
}
