import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { escapeHtml as e } from './html.ts';
import { isoTime } from '../iso-time.ts';

export interface OrderWebhookDelivery {
  endpointId: number;
  brokerageId: number;
  url: string;
  enabled: boolean;
  seq: number;
  kind: string;
  eventId: string;
  deliveredAt: Date | null;
  attempts: number;
  nextAttemptAt: Date;
  lastOutcome: string | null;
  lastStatus: number | null;
  lastError: string | null;
}

/** Each event of the order per endpoint: delivered or not, attempts, and how the last attempt went. */
export async function loadOrderWebhooks(ex: Executor, orderId: number): Promise<OrderWebhookDelivery[]> {
  // A brokerage id is a bigint (a sandbox brokerage's is past int4): read as text, made a number here.
  const rows = await query<OrderWebhookDelivery & Record<string, unknown>>(
    ex,
    sql`select d.endpoint_id::int as "endpointId", e.brokerage_id::bigint as "brokerageId", e.url, e.enabled, d.seq, d.kind,
          d.event_id as "eventId", d.delivered_at as "deliveredAt", d.attempts, d.next_attempt_at as "nextAttemptAt",
          a.outcome as "lastOutcome", a.status_code as "lastStatus", a.error as "lastError"
        from webhook_deliveries d
        join webhook_endpoints e on e.id = d.endpoint_id
        left join lateral (
          select outcome, status_code, error from webhook_attempts where delivery_id = d.id order by id desc limit 1
        ) a on true
        where d.order_id = ${orderId}
        order by d.endpoint_id, d.seq`,
  );
  return rows.map((r) => ({ ...r, brokerageId: Number(r.brokerageId) }));
}

export function renderOrderWebhooks(rows: readonly OrderWebhookDelivery[]): string {
  if (rows.length === 0) return '<p id="webhooks">No webhook endpoint was owed an event of this order.</p>';
  const body = rows.map((d) => {
    const state = d.deliveredAt ? 'ok' : d.attempts > 0 ? 'bad' : 'pending';
    const last = d.lastOutcome ? `${d.lastOutcome}${d.lastStatus ? ` ${d.lastStatus}` : ''}${d.lastError ? `: ${d.lastError}` : ''}` : '–';
    return `<tr class="${state}"><td>${e(d.endpointId)}${d.enabled ? '' : ' (disabled)'}</td><td>${e(d.brokerageId)}</td><td class="mono">${e(
      d.url,
    )}</td><td>${e(d.seq)} ${e(d.kind)}</td><td>${d.deliveredAt ? `delivered ${e(isoTime(d.deliveredAt))}` : `owed; next try ${e(isoTime(d.nextAttemptAt))}`}</td><td>${e(
      d.attempts,
    )}</td><td>${e(last)}</td></tr>`;
  });
  return `<table id="webhooks"><tr><th>endpoint</th><th>brokerage</th><th>url</th><th>event</th><th>delivery</th><th>attempts</th><th>last attempt</th></tr>
${body.join('\n')}
</table>`;
}
