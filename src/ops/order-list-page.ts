import { escapeHtml as e } from './html.ts';
import { isoTime } from '../iso-time.ts';
import { ORDER_FILTERS } from './order-filters.ts';
import type { OrderSearchPage } from './order-search.ts';

const when = (d: Date) => e(isoTime(d));

function field(name: string, value: string | undefined, choices?: readonly string[], defaultValue?: string): string {
  const label = name.replace(/_/g, ' ');
  if (!choices) return `<label>${e(label)} <input name="${e(name)}" value="${e(value ?? '')}" size="12"></label>`;
  // A filter with a default (mode) has no "any": left out, it is its default.
  const shown = value || defaultValue || '';
  const options = [...(defaultValue ? [] : ['']), ...choices].map(
    (c) => `<option value="${e(c)}"${c === shown ? ' selected' : ''}>${c === '' ? 'any' : e(c)}</option>`,
  );
  return `<label>${e(label)} <select name="${e(name)}">${options.join('')}</select></label>`;
}

/** The query string of this search with another `after`, for the "older" link. */
function pageLink(params: Record<string, string | undefined>, after: string): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v && k !== 'after') q.set(k, v);
  q.set('after', after);
  return `/ops/orders?${q.toString()}`;
}

/**
 * /ops/orders: the filters as a form, then one page of matching orders, newest first; each row
 * opens the order view. With `problem` (a filter, a date or an order id it cannot use, an
 * unknown order) the page says what is wrong above the form, which keeps what was typed.
 */
export function renderOrderList(
  params: Record<string, string | undefined>,
  page: OrderSearchPage,
  problems: readonly string[] = [],
): string {
  const rows = page.orders.map(
    (o) =>
      `<tr data-order="${e(o.id)}"><td><a href="/ops/orders/${e(o.id)}">${e(o.id)}</a>${o.livemode ? '' : ' <span class="test-mode">test</span>'}</td><td class="mono">${e(o.oid)}</td><td>${e(o.state)}</td><td>${
        o.shipment ? `#${e(o.shipment.id)} ${e(o.shipment.type)} · ${e(o.shipment.state)}` : '–'
      }</td><td>${e(o.sellerOfficeName)} <small>(office ${e(o.sellerOfficeId)}, ${e(o.sellerBrokerageName)})</small></td><td>${e(o.buyerBrokerageName)} <small>(${e(o.buyerBrokerageId)})</small></td><td>${o.deliverBy ? when(o.deliverBy) : '–'}</td><td>${when(o.createdAt)}</td><td>${when(
        o.updatedAt,
      )}</td></tr>`,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>orders · fulfil ops</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px system-ui,sans-serif;margin:1.5em 2em;color:#222}
form.filters{display:flex;flex-wrap:wrap;gap:.6em 1.2em;align-items:center;margin:.6em 0 1em}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left}th{background:#f4f4f6}
.mono{font-family:ui-monospace,monospace;font-size:12px}nav a{margin-right:1em}
.test-mode{background:#fff1c2;border:1px solid #d9b23c;color:#6b5200;border-radius:3px;padding:0 4px;font-size:11px;text-transform:uppercase}
.problem{border:1px solid #e0a0a0;background:#fdf0f0;color:#8a1020;padding:.5em .8em;border-radius:4px;display:inline-block}
</style></head><body>
<nav><a href="/ops/queues">queues</a><form style="display:inline" method="get" action="/ops/orders"><label>order id <input name="id" size="8"></label> <button>show</button></form></nav>
<h1>Orders</h1>
${problems.length > 0 ? `<p class="problem" id="problem" role="alert">${problems.map(e).join('<br>')}</p>` : ''}
<form class="filters" id="filters" method="get" action="/ops/orders">
${ORDER_FILTERS.map((f) => field(f.name, params[f.name], f.choices, f.defaultValue)).join('\n')}
<button>search</button> <a href="/ops/orders">clear</a>
</form>
<table id="orders"><tr><th>order</th><th>oid</th><th>state</th><th>live shipment</th><th>seller office</th><th>buyer brokerage</th><th>deliver by</th><th>created</th><th>updated</th></tr>
${rows.join('\n')}
</table>
<p>${page.orders.length === 0 ? 'No order matches.' : `${page.orders.length} order(s) on this page, newest first.`}${
    page.next ? ` <a id="older" href="${e(pageLink(params, page.next))}">older →</a>` : ''
  }</p>
</body></html>`;
}
