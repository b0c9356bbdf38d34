import { deliveryIssueMachine, orderMachine, shipmentMachine } from '../../machines/index.ts';
import { machineGraph, toMermaid } from './machine-graph.ts';
import { machineSvg } from './machine-svg.ts';

export const MACHINES_DOC = 'docs/MACHINES.md';

/** The machines the docs and the order view draw. */
export const DRAWN_MACHINES = { shipment: shipmentMachine, order: orderMachine, delivery_issue: deliveryIssueMachine } as const;

/** docs/MACHINES.md and its SVG drawings, generated from machines/ (`npm run docs:machines`). */
export function machinesDocFiles(): Record<string, string> {
  const shipment = machineGraph(DRAWN_MACHINES.shipment);
  const order = machineGraph(DRAWN_MACHINES.order);
  const issue = machineGraph(DRAWN_MACHINES.delivery_issue);
  const table = (g: ReturnType<typeof machineGraph>) =>
    [
      '| from | event [guard] | to |',
      '|---|---|---|',
      ...g.edges.map((e) => `| ${e.from || '(any)'} | ${e.label.replace(/\|/g, '\\|')} | ${e.targetless ? '(stays)' : e.to} |`),
    ].join('\n');
  const doc = `# State machines

Generated from \`machines/\` by \`npm run docs:machines\`; a test fails when this file is stale. The
order view (\`/ops/orders/:id\`) draws the same diagrams with the current state filled.

## Shipment

One machine per shipment version. \`start\` is transient: the shipment type chosen at acceptance
picks the first resting state. A targetless transition ("stays") runs an action without leaving
the state. \`localPickup\` is parallel: seller and buyer supply their details independently, and
the shipment is delivered when both have. \`CANCEL\` (both parties canceled the order) leaves any state
that is not final for \`canceled\`; the drawing leaves those arrows out, the Mermaid text and the table show them.

![shipment machine](machines/shipment.svg)

\`\`\`mermaid
${toMermaid(shipment)}
\`\`\`

${table(shipment)}

## Order

Pending until the seller accepts or rejects it. An accepted order is completed with its shipment, or
canceled by both parties: the first party's \`CANCEL\` proposes (\`cancel_proposed.seller\` or
\`.buyer\`: who proposed), the other party's confirms, and the proposer's \`WITHDRAW\` takes it back.
Deadlines (\`shipment.due_soon\`, \`shipment.overdue\`) are not transitions: they change no state.

![order machine](machines/order.svg)

\`\`\`mermaid
${toMermaid(order)}
\`\`\`

${table(order)}

## Delivery issue

One machine per delivery issue of a completed (or late) order, beside the order's, which it does not
change. The buyer opens it; the seller's answer (a reissue or a response) makes it
\`seller_responded\`; the buyer resolves or escalates it; the service escalates an issue still
\`open\` when its \`respond_by\` passes (\`ESCALATE\` by the system); an operator closes an
escalated one with an outcome.

![delivery issue machine](machines/delivery_issue.svg)

\`\`\`mermaid
${toMermaid(issue)}
\`\`\`

${table(issue)}
`;
  return {
    [MACHINES_DOC]: doc,
    'docs/machines/shipment.svg': `${machineSvg(shipment)}\n`,
    'docs/machines/order.svg': `${machineSvg(order)}\n`,
    'docs/machines/delivery_issue.svg': `${machineSvg(issue)}\n`,
  };
}
