import { DELIVERY_ISSUE_OUTCOMES } from '@fulfil/contract';
import type { IssueRow, ResponseRow } from '../db/sql/delivery-issues.ts';
import type { EvidenceEntry } from '../read/evidence-sources.ts';
import { FORM_TOKEN_FIELD } from './form-guard.ts';
import { escapeHtml as e } from './html.ts';
import { renderOrderMailing, type OrderMailing } from './order-view-mailed.ts';

export interface EscalatedIssue {
  issue: IssueRow;
  responses: readonly ResponseRow[];
  evidence: EvidenceEntry[];
  /** A mailed order's envelope; undefined for other deliveries. */
  mailing: OrderMailing | undefined;
}

/** Both parties' words on the issue, in the order they were given: what an operator weighs. */
function words(issue: IssueRow, responses: readonly ResponseRow[]): string {
  const said: Array<[string, string, string | null]> = [
    [issue.openedAt.toISOString(), 'buyer, opening', issue.notes],
    ...responses.map((r): [string, string, string | null] => [
      r.at.toISOString(),
      `seller, ${r.kind === 'reissue' ? 'reissuing' : 'answering'}`,
      r.notes,
    ]),
    [issue.resolvedAt?.toISOString() ?? '', 'buyer, resolving', issue.resolutionNotes],
    [issue.escalatedAt?.toISOString() ?? '', 'buyer, escalating', issue.escalationNotes],
  ];
  const rows = said
    .filter(([, , text]) => text)
    .map(([at, who, text]) => `<tr><td class="mono">${e(at)}</td><td>${e(who)}</td><td class="words">${e(text)}</td></tr>`);
  return `<table class="words"><thead><tr><th>at</th><th>who</th><th>words</th></tr></thead><tbody>${
    rows.length ? rows.join('') : '<tr><td colspan="3">Neither party wrote anything.</td></tr>'
  }</tbody></table>`;
}

/** What an evidence entry says beside its time, what and by whom, in a few words. */
function facts(entry: EvidenceEntry): string {
  const { at: _at, what: _what, by: _by, ...rest } = entry;
  return Object.entries(rest)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
}

function closeForm(issue: IssueRow, write: boolean, formToken: string | undefined): string {
  if (!write) return '<p><small>Closing needs OPS_WRITE=true (or <code>fulfil issues close</code>).</small></p>';
  const outcomes = DELIVERY_ISSUE_OUTCOMES.map((o) => `<option value="${e(o)}">${e(o.replace(/_/g, ' '))}</option>`).join('');
  // Nothing chosen for the operator: a decision is made, never defaulted.
  return `<form method="post" action="/ops/delivery_issues/${e(issue.id)}/close" class="close">
<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${e(formToken ?? '')}">
<label>outcome <select name="outcome" required><option value="" selected disabled>choose an outcome</option>${outcomes}</select></label>
<label>notes <input name="notes" size="40" maxlength="2000"></label>
<small>The notes are shown to both parties (the issue's <code>close_notes</code>).</small>
<label>operator <input name="operator" size="16" maxlength="200"></label>
<button>close issue ${e(issue.id)}</button></form>`;
}

/**
 * /ops/delivery_issues: the escalated issues, oldest first, each with its order's evidence of
 * delivery beside it and the close action (an outcome, notes). `notice` says what the last close did.
 */
export function renderEscalatedIssues(
  issues: readonly EscalatedIssue[],
  opts: { write: boolean; formToken?: string; notice?: string; problem?: string; mode?: 'live' | 'test' | 'all' },
): string {
  const mode = opts.mode ?? 'live';
  const modeLinks = (['live', 'test', 'all'] as const)
    .map((m) => (m === mode ? `<b>${m}</b>` : `<a href="/ops/delivery_issues${m === 'live' ? '' : `?mode=${m}`}">${m}</a>`))
    .join(' · ');
  const cards = issues.map(({ issue, responses, evidence, mailing }) => {
    const rows = evidence
      .map(
        (x) =>
          `<tr><td class="mono">${e(x.at)}</td><td>${e(x.what)}</td><td>${e(x.by ?? '–')}</td><td class="mono">${e(facts(x))}</td></tr>`,
      )
      .join('');
    return `<section class="issue" data-issue="${e(issue.id)}">
<h2>Issue ${e(issue.id)} · order <a href="/ops/orders/${e(issue.orderId)}">${e(issue.orderId)}</a>${
      issue.livemode ? '' : ' <span class="test-mode">test mode</span>'
    }</h2>
<p>${e(issue.reason)}${issue.seats.length ? ` · seats ${e(issue.seats.join(', '))}` : ''} · opened ${e(issue.openedAt.toISOString())} · escalated ${e(
      issue.escalatedAt?.toISOString() ?? '–',
    )} by ${e(issue.escalatedBy ?? '–')}</p>
${words(issue, responses)}
${renderOrderMailing(mailing, true)}
<div class="side"><div>${closeForm(issue, opts.write, opts.formToken)}</div>
<table><thead><tr><th>at</th><th>what</th><th>by</th><th>facts</th></tr></thead><tbody>${rows}</tbody></table></div>
</section>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>delivery issues · fulfil ops</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px system-ui,sans-serif;margin:1.5em 2em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f4f4f6}
.mono{font-family:ui-monospace,monospace;font-size:12px}nav a{margin-right:1em}
.side{display:flex;gap:1.5em;align-items:flex-start;flex-wrap:wrap}form.close{display:flex;flex-direction:column;gap:.5em}
section.issue{border-top:1px solid #ccc;margin-top:1.2em}
.problem{border:1px solid #e0a0a0;background:#fdf0f0;color:#8a1020;padding:.5em .8em;border-radius:4px;display:inline-block}
td.words{white-space:pre-wrap;max-width:50em}
.test-mode{background:#fff1c2;border:1px solid #d9b23c;color:#6b5200;border-radius:3px;padding:0 6px;font-size:.75em;text-transform:uppercase}
.notice{border:1px solid #a0d0a0;background:#f0fdf0;padding:.5em .8em;border-radius:4px;display:inline-block}
</style></head><body>
<nav><a href="/ops/queues">queues</a><a href="/ops/orders">orders</a></nav>
<h1>Escalated delivery issues (${e(issues.length)})</h1>
<p id="modes">orders: ${modeLinks}</p>
${opts.problem ? `<p class="problem" id="problem" role="alert">${e(opts.problem)}</p>` : ''}${opts.notice ? `<p class="notice" id="notice">${e(opts.notice)}</p>` : ''}
${issues.length ? cards.join('\n') : '<p>None: no issue waits for an operator.</p>'}
</body></html>`;
}

/**
 * The order view's section of the order's delivery issues (the page itself is order-view-page.ts):
 * each issue's state, both parties' words and the operator's, and the close action on an escalated one.
 */
export function orderIssuesSection(
  issues: readonly IssueRow[],
  write: boolean,
  responses: readonly ResponseRow[] = [],
  formToken?: string,
): string {
  if (issues.length === 0) return '';
  const rows = issues
    .map(
      (i) =>
        `<tr data-issue="${e(i.id)}"><td>${e(i.id)}</td><td>${e(i.state)}</td><td>${e(i.reason)}</td><td class="mono">${e(i.openedAt.toISOString())}</td><td class="mono">${e(
          i.respondBy.toISOString(),
        )}</td><td>${e(i.outcome ?? '–')}${i.closeNotes ? `<br><span class="words">${e(i.closeNotes)}</span>` : ''}</td><td>${words(
          i,
          responses.filter((r) => r.issueId === i.id),
        )}</td><td>${i.state === 'escalated' ? closeForm(i, write, formToken) : ''}</td></tr>`,
    )
    .join('');
  return `<section id="delivery-issues"><h2>Delivery issues (${e(issues.length)})</h2>
<p><a href="/ops/delivery_issues">every escalated issue, with its evidence</a></p>
<table><thead><tr><th>issue</th><th>state</th><th>reason</th><th>opened</th><th>respond by</th><th>outcome</th><th>words</th><th>close</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}
