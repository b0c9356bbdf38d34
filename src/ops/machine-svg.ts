import { escapeHtml as e } from './html.ts';
import type { MachineGraph } from './machine-graph.ts';
import {
  FONT_PX,
  LABEL_LINE_PX,
  LABEL_PX,
  LINE_PX,
  machineLayout,
  type MachineLayout,
  type Point,
  type StateShape,
} from './machine-layout.ts';

/**
 * Draws a machine as a self-contained SVG (no script, no external asset), laid out by
 * machine-layout.ts. Active states are outlined and filled, so the diagram shows where a
 * shipment is. Every text goes through escapeHtml.
 */
export function machineSvg(graph: MachineGraph, active: Set<string> = new Set(), title = graph.name): string {
  let layout = layouts.get(graph);
  if (!layout) layouts.set(graph, (layout = machineLayout(graph)));
  return drawLayout(layout, active, title);
}

// A machine's layout does not change; the order view draws the same graphs on every request.
const layouts = new WeakMap<MachineGraph, MachineLayout>();

const CORNER = 6;

/** The line through the points, its corners rounded (never further from them than CORNER). */
export function pathThrough(points: Point[]): string {
  const [p0, ...rest] = points;
  if (!p0) return '';
  const out = [`M ${n(p0.x)} ${n(p0.y)}`];
  rest.forEach((p, i) => {
    const next = rest[i + 1];
    const prev = i === 0 ? p0 : rest[i - 1]!;
    if (!next) return out.push(`L ${n(p.x)} ${n(p.y)}`);
    const towards = (q: Point, d: number) => {
      const len = Math.hypot(q.x - p.x, q.y - p.y) || 1;
      const k = Math.min(d, len / 2) / len;
      return { x: p.x + (q.x - p.x) * k, y: p.y + (q.y - p.y) * k };
    };
    const a = towards(prev, CORNER);
    const b = towards(next, CORNER);
    out.push(`L ${n(a.x)} ${n(a.y)} Q ${n(p.x)} ${n(p.y)} ${n(b.x)} ${n(b.y)}`);
  });
  return out.join(' ');
}

const n = (v: number) => Math.round(v * 10) / 10;

function drawState(s: StateShape, on: boolean): string {
  const { node, box: b, head } = s;
  const cls = ['state', node.type, s.region ? 'region' : '', on ? 'active' : ''].filter(Boolean).join(' ');
  const rx = s.cluster ? 10 : 16;
  const out = [
    `<g class="${cls}" data-state="${e(node.id)}"><rect x="${n(b.x)}" y="${n(b.y)}" width="${n(b.w)}" height="${n(b.h)}" rx="${rx}"/>`,
  ];
  if (node.type === 'final' && !s.cluster)
    out.push(`<rect class="inner" x="${n(b.x + 3)}" y="${n(b.y + 3)}" width="${n(b.w - 6)}" height="${n(b.h - 6)}" rx="${rx - 3}"/>`);
  const cx = n(head.x + head.w / 2);
  const nameY = s.cluster ? head.y + FONT_PX + 2 : head.y + (head.h - s.stays.length * LINE_PX) / 2 + FONT_PX / 2 - 1;
  out.push(`<text x="${cx}" y="${n(nameY)}">${e(node.key)}${on && !s.cluster ? ' ●' : ''}</text>`);
  if (s.stays.length) {
    const ruleY = nameY + 7;
    if (!s.cluster) out.push(`<line class="rule" x1="${n(b.x)}" y1="${n(ruleY)}" x2="${n(b.x + b.w)}" y2="${n(ruleY)}"/>`);
    s.stays.forEach((line, i) => out.push(`<text class="stays" x="${cx}" y="${n(ruleY + (i + 1) * LINE_PX - 3)}">${e(line)}</text>`));
  }
  out.push('</g>');
  return out.join('');
}

export function drawLayout(l: MachineLayout, active: Set<string>, title: string): string {
  // Outer clusters first, so what they hold is drawn over them.
  const depth = (s: StateShape) => s.node.id.split('.').length;
  const states = [...l.states].sort((a, b) => Number(b.cluster) - Number(a.cluster) || depth(a) - depth(b));
  const out = states.map((s) => drawState(s, active.has(s.node.id)));
  const [dot] = l.start;
  if (dot)
    out.push(
      `<circle class="initial" cx="${n(dot.x)}" cy="${n(dot.y - 6)}" r="6"/><path class="edge" d="${pathThrough(l.start)}" marker-end="url(#arrow)"/>`,
    );
  for (const { points } of l.edges) out.push(`<path class="edge" d="${pathThrough(points)}" marker-end="url(#arrow)"/>`);
  for (const { label } of l.edges) {
    if (!label) continue;
    const x = n(label.box.x + 2);
    const lines = label.lines.map((t, i) => `<tspan x="${x}" y="${n(label.box.y + 2 + (i + 1) * LABEL_LINE_PX - 3)}">${e(t)}</tspan>`);
    out.push(`<text class="label">${lines.join('')}</text>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" class="machine" viewBox="0 0 ${l.width} ${l.height}" width="${l.width}" height="${l.height}" style="max-width:100%;height:auto" role="img" aria-label="${e(title)} state machine">
<title>${e(title)} state machine</title>
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>
<style>
.state rect{fill:#fff;stroke:#667;stroke-width:1.4}
.state.parallel>rect,.state.compound>rect{fill:#f6f7fb}
.state.region>rect{fill:#fbfbfd;stroke-dasharray:4 3}
.state.final>rect.inner{fill:none}
.state.active>rect{stroke:#0b6b3a;stroke-width:2.5}
.state.active.atomic>rect,.state.active.final>rect:first-child{fill:#c9f0d8}
.rule{stroke:#667;stroke-width:1}
text{font:${FONT_PX}px system-ui,sans-serif;text-anchor:middle;fill:#222}
.stays,.label{font-size:${LABEL_PX}px;fill:#444}
.label{text-anchor:start}
.edge{stroke:#555;stroke-width:1.2;fill:none}
.initial{fill:#333}
</style>
${out.join('\n')}
</svg>`;
}
