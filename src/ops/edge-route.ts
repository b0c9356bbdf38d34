/**
 * The lines of a dagre layout, drawn so that none can cross a label or a state; ranks run left
 * to right here (machine-layout.ts turns its top-to-bottom drawing to match). Dagre puts every
 * state and every label in a rank, a column of the drawing, and gives each transition a point
 * in every column it passes. A line drawn straight from point to point can still cut the corner
 * of a label beside it in a column; drawn level across each column it passes (from one side of
 * the column to the other) and slanting only in the empty space between columns, it meets
 * nothing that dagre placed.
 */

export interface Point {
  x: number;
  y: number;
}

/** A rectangle by its top-left corner. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A column: its middle and its width (the widest state or label in it). */
export type Columns = (x: number) => number;

/** The columns of the boxes of everything dagre placed (every box of a column has the same middle). */
export function columnsOf(boxes: Box[]): Columns {
  const widths = new Map<number, number>();
  const key = (x: number) => Math.round(x * 2) / 2;
  for (const { x, w } of boxes) widths.set(key(x + w / 2), Math.max(widths.get(key(x + w / 2)) ?? 0, w));
  return (x) => widths.get(key(x)) ?? 0;
}

/**
 * The line of a transition: out of the side of `from` that faces the way it goes, level across
 * each column to the side of `to`. `points` are dagre's: on the two states' borders and one in
 * each column between.
 */
export function route(points: Point[], from: Box, to: Box, columns: Columns, ports: Ports = {}): Point[] {
  const inner = points.slice(1, -1);
  const first = inner[0] ?? centre(to);
  const last = inner.at(-1) ?? centre(from);
  const out: Point[] = [...side(from, first.x, columns, false, ports.out)];
  inner.forEach((p, i) => {
    const prev = i === 0 ? centre(from) : inner[i - 1]!;
    const next = inner[i + 1] ?? centre(to);
    const half = columns(p.x) / 2;
    const dir = Math.sign(next.x - prev.x) || 1;
    out.push({ x: p.x - dir * half, y: p.y }, { x: p.x + dir * half, y: p.y });
  });
  out.push(...side(to, last.x, columns, true, ports.in));
  return dedupe(out);
}

/** A transition as dagre holds it: from node v to node w, by name. */
export interface Link {
  v: string;
  w: string;
  name: string;
}

/** Where a line leaves its first box and enters its last (y); the middle of the side when not given. */
export interface Ports {
  out?: number;
  in?: number;
}

/**
 * Lines that meet one side of a box are spread along it, in the order of where they come
 * from, so that their arrowheads do not pile up in the middle of the side.
 */
export function spreadPorts(links: Array<Link & { points: Point[] }>, boxOf: (id: string) => Box): Map<string, Ports> {
  const sides = new Map<string, Array<{ name: string; end: keyof Ports; y: number }>>();
  const at = (key: string, item: { name: string; end: keyof Ports; y: number }) => sides.set(key, [...(sides.get(key) ?? []), item]);
  for (const { v, w, name, points } of links) {
    const [from, to] = [centre(boxOf(v)), centre(boxOf(w))];
    const first = points[1] && points.length > 2 ? points[1] : to;
    const last = points.length > 2 ? points.at(-2)! : from;
    at(`${v}\u0000${Math.sign(first.x - from.x)}`, { name, end: 'out', y: first.y });
    at(`${w}\u0000${Math.sign(last.x - to.x)}`, { name, end: 'in', y: last.y });
  }
  const ports = new Map<string, Ports>(links.map((k) => [k.name, {}]));
  for (const [key, items] of sides) {
    if (items.length < 2) continue;
    const box = boxOf(key.slice(0, key.indexOf('\u0000')));
    items.sort((a, b) => a.y - b.y);
    items.forEach((item, i) => (ports.get(item.name)![item.end] = box.y + (box.h * (i + 1)) / (items.length + 1)));
  }
  return ports;
}

const centre = (b: Box): Point => ({ x: b.x + b.w / 2, y: b.y + b.h / 2 });

/** The port (by default the middle) of the box's side facing towards x, and where that level line leaves its column. */
function side(b: Box, towards: number, columns: Columns, arriving: boolean, y = centre(b).y): Point[] {
  const c = centre(b);
  const dir = Math.sign(towards - c.x) || 1;
  const edge = { x: c.x + (dir * b.w) / 2, y };
  const column = { x: c.x + (dir * Math.max(b.w, columns(c.x))) / 2, y };
  return arriving ? [column, edge] : [edge, column];
}

function dedupe(points: Point[]): Point[] {
  return points.filter((p, i) => i === 0 || Math.hypot(p.x - points[i - 1]!.x, p.y - points[i - 1]!.y) > 0.5);
}

/** The line from where it leaves the box (it starts inside it); unchanged without a box. */
export function clipStart(points: Point[], box: Box | undefined): Point[] {
  if (!box) return points;
  const inside = (p: Point) => p.x > box.x && p.x < box.x + box.w && p.y > box.y && p.y < box.y + box.h;
  const out = points.findIndex((p) => !inside(p));
  if (out <= 0) return points;
  const a = points[out - 1]!;
  const b = points[out]!;
  // The step from a (inside) to b (outside) crosses a side: the first crossing along it.
  const ts = [
    (box.x - a.x) / (b.x - a.x),
    (box.x + box.w - a.x) / (b.x - a.x),
    (box.y - a.y) / (b.y - a.y),
    (box.y + box.h - a.y) / (b.y - a.y),
  ].filter((t) => t >= 0 && t <= 1);
  const t = Math.min(...ts);
  return [{ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t }, ...points.slice(out)];
}

/** The line up to where it enters the box (it ends inside it). */
export function clipEnd(points: Point[], box: Box | undefined): Point[] {
  return clipStart([...points].reverse(), box).reverse();
}
