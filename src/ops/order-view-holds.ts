import type { HoldRow } from '../db/sql/holds.ts';
import { escapeHtml as e } from './html.ts';

const who = (a: HoldRow['placedBy'] | null) =>
  !a
    ? '–'
    : a.party === 'operator'
      ? `operator ${a.operator ?? ''}`
      : a.party === 'system'
        ? 'release_at'
        : `${a.party} (brokerage ${a.brokerageId})`;
const at = (d: Date | null) => (d ? d.toISOString() : '–');

/** The order's holds on the ops order view, active ones first in the reader's eye (state column); `fulfil holds` acts on them. */
export function renderOrderHolds(holds: readonly HoldRow[]): string {
  if (holds.length === 0) return '<p id="holds">No holds.</p>';
  const rows = holds.map(
    (h) =>
      `<tr data-hold="${e(h.id)}"><td>${e(h.id)}</td><td><b>${h.releasedAt ? 'released' : 'active'}</b></td><td>${e(h.reason)}</td><td>${e(
        h.seats.join(', ') || 'all',
      )}</td><td>${e(who(h.placedBy))} · ${e(at(h.placedAt))}</td><td>${e(at(h.releaseAt))}</td><td>${e(who(h.releasedBy))} · ${e(
        at(h.releasedAt),
      )}</td><td>${e(h.deadlineExtendedMs)}</td><td>${e(h.notes ?? '')}${h.answerNotes ? ` · buyer: ${e(h.answerNotes)}` : ''}</td></tr>`,
  );
  return `<table id="holds"><tr><th>hold</th><th>state</th><th>reason</th><th>seats</th><th>placed</th><th>release at</th><th>released</th><th>deadline +ms</th><th>notes</th></tr>
${rows.join('\n')}
</table>`;
}
