import { orderMachine, shipmentMachine } from '../../machines/index.ts';
import { escapeHtml as e } from './html.ts';
import { isoTime } from '../iso-time.ts';
import { renderWhatWasSent } from './order-view-sent.ts';
import { activeStates, machineGraph } from './machine-graph.ts';
import { actorText } from '../events/actor-text.ts';
import { machineSvg } from './machine-svg.ts';
import type { OrderViewData } from './order-view-data.ts';
import { renderOrderWebhooks } from './order-view-webhooks.ts';
import { renderOrderFiles } from './order-view-files.ts';
import { renderCompletion } from './order-view-completion.ts';
import { renderOrderMailing } from './order-view-mailed.ts';
import { renderOrderHolds } from './order-view-holds.ts';
import { commandOutcome, type CommandOutcome } from '../commands/command-outcome.ts';

const SHIPMENT_GRAPH = machineGraph(shipmentMachine);
const ORDER_GRAPH = machineGraph(orderMachine);

/** The deadline and its two timers as Postgres holds them (src/timers/), and how the order ended. */
function deadlineRows(order: OrderViewData['order']): string {
  const timer = (at: Date | null, fired: Date | null) =>
    at ? `due ${when(at)}, ${fired ? `fired ${when(fired)}` : 'not fired yet'}` : 'none';
  // A reminder due before the order existed: its deadline was nearer than the reminder's lead when it came.
  const early =
    order.dueSoonAt && order.dueSoonAt < order.createdAt
      ? ' (due before the order existed: its deadline was already nearer than the reminder’s lead, DUE_SOON_BEFORE_MS, when the order came, so the reminder fired as soon as it could)'
      : '';
  const rows = order.deliverBy
    ? [
        `<tr><td>in hand on · deliver by</td><td id="order-deadline">${e(order.inHandOn ?? '–')} · ${when(order.deliverBy)}${
          order.overdueFiredAt ? ' <b>overdue</b>' : ''
        }</td></tr>`,
        `<tr><td>reminder (shipment.due_soon)</td><td id="order-reminder">${timer(order.dueSoonAt, order.dueSoonFiredAt)}${e(early)}</td></tr>`,
        `<tr><td>deadline (shipment.overdue)</td><td id="order-timers">${timer(order.deliverBy, order.overdueFiredAt)}</td></tr>`,
      ]
    : ['<tr><td>deadline</td><td id="order-deadline">none (no in-hand date)</td></tr>'];
  if (order.rejectionReason)
    rows.push(
      `<tr><td>rejected</td><td>${e(order.rejectionReason)}${order.rejectionNotes ? ` · ${e(order.rejectionNotes)}` : ''}</td></tr>`,
    );
  return rows.join('\n');
}

const when = (d: Date | null | undefined) => (d ? e(isoTime(d)) : '–');

const OUTCOME_CLASS: Record<CommandOutcome, string> = {
  succeeded: 'ok',
  refused: 'refused',
  failed: 'bad',
  queued: 'pending',
  running: 'pending',
};

function outcomeClass(status: string, resultStatus: number | null): string {
  return OUTCOME_CLASS[commandOutcome(status, resultStatus)];
}

function outcomeText(c: OrderViewData['commands'][number]): string {
  const outcome = commandOutcome(c.status, c.resultStatus);
  if (outcome === 'failed') return 'failed (every attempt hit an infrastructure error)';
  return c.resultStatus !== null ? `${outcome} ${c.resultStatus}` : outcome;
}

/**
 * A test order says so at once, with the clock it lives at (D-202): an operator must never take
 * the sandbox's trouble for a real buyer's.
 */
function testModeBadge(data: OrderViewData): string {
  if (data.order.livemode) return '';
  const c = data.clock;
  const clock = c
    ? ` · clock ${e(c.id)}${c.name ? ` "${e(c.name)}"` : ''} at ${when(c.frozenTime)}${c.status === 'advancing' ? ' (advancing)' : ''}`
    : ' · wall clock';
  return ` <span class="test-mode" id="test-mode">test mode${clock}</span>`;
}

/** The order view: the order, its shipment chain, the timeline, the commands, and the machines with the current state. */
export function renderOrderView(data: OrderViewData): string {
  const { order } = data;
  const live = data.shipments.find((s) => s.replacedBy === null);
  const chain = data.shipments
    .map(
      (s) =>
        `<span class="ship ${s.replacedBy === null ? 'live' : 'old'}" data-shipment="${e(s.id)}">#${e(s.id)} ${e(s.type)} · ${e(s.state)}${
          s.replacedBy === null ? ' · live' : ''
        }</span>`,
    )
    .join('<span class="arrow"> → </span>');
  const events = data.events.map(
    (ev) =>
      `<tr><td>${e(ev.seq)}</td><td>${when(ev.at)}</td><td>${e(ev.kind)}</td><td>${
        ev.shipmentId === null || ev.shipmentId === ev.newShipmentId ? e(ev.newShipmentId) : `${e(ev.shipmentId)} → ${e(ev.newShipmentId)}`
      }</td><td>${ev.fromType ? `${e(ev.fromType)}/${e(ev.fromState)}` : '–'}</td><td>${ev.toType ? `${e(ev.toType)}/${e(ev.toState)}` : '–'}</td><td>${e(actorText(ev))}</td><td class="mono">${e(ev.commandId ?? '')}</td></tr>`,
  );
  const cmds = data.commands.map(
    (c) =>
      `<tr class="${outcomeClass(c.status, c.resultStatus)}"><td class="mono">${e(c.id)}</td><td>${e(c.name)}</td><td>${e(outcomeText(c))}</td><td>${e(
        c.error ?? '',
      )}</td><td>${e(c.attempts)}</td><td>${when(c.createdAt)}</td><td>${when(c.finishedAt)}</td></tr>`,
  );
  const shipmentDiagram = live
    ? machineSvg(SHIPMENT_GRAPH, activeStates(live.stateValue), `shipment ${live.id}`)
    : '<p>No shipment yet: the order has not been accepted.</p>';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>order ${e(order.id)} · fulfil ops</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px system-ui,sans-serif;margin:1.5em 2em;color:#222}
h1{margin:0 0 .2em}h2{margin:1.4em 0 .4em;font-size:1.1em}
table{border-collapse:collapse;margin:.3em 0}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f4f4f6}
.facts td:first-child{color:#666}.mono{font-family:ui-monospace,monospace;font-size:12px}
.ship{display:inline-block;padding:3px 8px;border:1px solid #aab;border-radius:12px}.ship.old{color:#777;text-decoration:line-through}.ship.live{border-color:#0b6b3a;background:#e8f7ee}
tr.ok td:nth-child(3),#webhooks tr.ok td:nth-child(5){color:#0b6b3a}#webhooks tr.bad td:nth-child(5){color:#b00020}tr.refused td:nth-child(3){color:#8a5a00}tr.bad td:nth-child(3){color:#b00020;font-weight:bold}tr.pending td:nth-child(3){color:#555}
.machines{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}.machines figure{margin:0}figcaption{color:#555;margin-bottom:.3em}
nav a{margin-right:1em}
.test-mode{background:#fff1c2;border:1px solid #d9b23c;color:#6b5200;border-radius:4px;padding:2px 8px;font-size:.55em;vertical-align:middle;text-transform:uppercase}
</style></head><body>
<nav><a href="/ops/queues">queues</a><form style="display:inline" method="get" action="/ops/orders"><label>order <input name="id" size="8" value="${e(order.id)}"></label> <button>show</button></form></nav>
<h1>Order ${e(order.id)} <small class="mono">${e(order.oid)}</small>${testModeBadge(data)}</h1>
<table class="facts">
<tr><td>state</td><td id="order-state"><b>${e(order.state)}</b></td></tr>
<tr><td>delivery</td><td>${e(order.delivery)} · ${e(order.quantity)} ticket(s)</td></tr>
<tr><td>seller</td><td id="order-seller">${e(data.parties.sellerOfficeName)} (office ${e(order.sellerOfficeId)}) of ${e(data.parties.sellerBrokerageName)} (brokerage ${e(data.parties.sellerBrokerageId)})</td></tr>
<tr><td>buyer</td><td id="order-buyer">${e(data.parties.buyerBrokerageName)} (brokerage ${e(order.buyerBrokerageId)})</td></tr>
<tr><td>created · accepted · completed</td><td>${when(order.createdAt)} · ${when(order.acceptedAt)} · ${when(order.completedAt)}</td></tr>
${deadlineRows(order)}
</table>
<h2>Holds (${data.holds.filter((h) => !h.releasedAt).length} active)</h2>
${renderOrderHolds(data.holds)}
<h2>What the buyer was sent</h2>
${renderWhatWasSent(order, data.sent)}
<h2>What completed the shipment</h2>
${renderCompletion(data.completion)}
${renderOrderMailing(data.mailing)}
<h2>Shipment chain</h2>
<p id="chain">${chain || 'none yet'}</p>
<h2>Shipment machine${live ? ` (shipment ${e(live.id)}: ${e(live.type)}, current state filled)` : ''}</h2>
<div class="machines"><figure>${shipmentDiagram}</figure><figure><figcaption>order machine</figcaption>${machineSvg(
    ORDER_GRAPH,
    activeStates(order.state),
    `order ${order.id}`,
  )}</figure></div>
<h2>Timeline (${data.events.length} event${data.events.length === 1 ? '' : 's'})</h2>
<table id="timeline"><tr><th>seq</th><th>at</th><th>kind</th><th>shipment</th><th>from</th><th>to</th><th>by</th><th>command</th></tr>
${events.join('\n')}
</table>
<h2>Commands (${data.commands.length})</h2>
<table id="commands"><tr><th>command</th><th>name</th><th>outcome</th><th>error</th><th>attempts</th><th>sent</th><th>finished</th></tr>
${cmds.join('\n')}
</table>
<h2>Files (${data.files.length})</h2>
${renderOrderFiles(data.files)}
<h2>Webhook deliveries (${data.webhooks.length})</h2>
${renderOrderWebhooks(data.webhooks)}
</body></html>`;
}
