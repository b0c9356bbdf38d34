import type { CommandEntry } from '../command.ts';

/**
 * Every `fulfil` command, in the order `fulfil --help` lists them. Only the words and texts live
 * here; a command's module (and everything it imports: database drivers, BullMQ, zod schemas) is
 * loaded when that command runs, so `--help` answers without loading any of it.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    path: ['start'],
    brief: 'Runs the service (HTTP ingress and workers, or one role).',
    summary:
      'Runs the service: HTTP ingress and command workers in one process, or one role with --role.\n' +
      'Configuration comes from the environment (PORT, DATABASE_URL, REDIS_URL, FULFIL_SECRET_KEY, PUBLIC_HOST,\n' +
      'LOG_LEVEL, DATA_DIR, OPS_TOKEN, OPS_WRITE, METRICS_PORT …; see README.md). --seed loads a fixture first\n' +
      '(loading it again changes nothing). A worker-only process serves /metrics and /livez on METRICS_PORT.',
    usage: 'start [--role all|api|worker|webhooks] [--seed <fixture.json>]',
    load: () => import('./start.ts').then((m) => m.start),
  },
  {
    path: ['migrate'],
    brief: 'Applies pending database migrations.',
    summary: 'Applies pending database migrations, under an advisory lock: safe to run from several processes at once.',
    usage: 'migrate',
    load: () => import('./migrate.ts').then((m) => m.migrate),
  },
  {
    path: ['seed'],
    brief: 'Loads a fixture document into the database.',
    summary:
      'Loads a fixture document (brokerages, offices, users, credentials, events, orders, ticket groups) into the\n' +
      'database; loading it again changes nothing. With the embedded database it works whether or not the\n' +
      'service runs (a running service lends its database to the CLI).',
    usage: 'seed <file.json>',
    load: () => import('./seed.ts').then((m) => m.seed),
  },
  {
    path: ['credentials', 'create'],
    brief: 'Creates an API or user credential and prints its secret once.',
    summary:
      'Creates an API credential of a brokerage (or a user credential with --user) and prints token and secret\n' +
      'once; the secret cannot be shown again. --test makes a test credential: it acts for the\n' +
      "brokerage's sandbox twin, never sees live data (docs/API.md, Test mode).",
    usage: 'credentials create --brokerage <id> [--user <id>] [--test] [--json]',
    load: () => import('./credentials.ts').then((m) => m.credentialsCreate),
  },
  {
    path: ['credentials', 'list'],
    brief: 'Lists credentials, never their secrets.',
    summary: 'Lists credentials (never their secrets), optionally of one brokerage.',
    usage: 'credentials list [--brokerage <id>]',
    load: () => import('./credentials.ts').then((m) => m.credentialsList),
  },
  {
    path: ['credentials', 'revoke'],
    brief: 'Revokes a credential at once, in every process.',
    summary: 'Revokes a credential; every process refuses it from then on.',
    usage: 'credentials revoke <token>',
    load: () => import('./credentials.ts').then((m) => m.credentialsRevoke),
  },
  {
    path: ['call'],
    brief: 'Sends one signed request to a running service and prints the answer.',
    summary:
      'Sends one signed request to a running service: the status line to stderr, the answer alone to stdout, byte for\n' +
      'byte (`> label.pdf` is the file; JSON is indented on a terminal only); exits 0 on 2xx,\n' +
      '1 otherwise. Credentials come from --token/--secret, or from FULFIL_TOKEN and FULFIL_SECRET (which keeps\n' +
      'the secret out of the shell history). The service is --base if given, else the one running with this\n' +
      'DATA_DIR (a started service leaves its address there, whatever its PORT), else http://127.0.0.1:$PORT (8080).\n' +
      "-H 'Name: value' adds a header (repeatable): Idempotency-Key, Prefer. Examples:\n" +
      '  fulfil call GET "/v9/inventory?office_id=10&state=ALL"\n' +
      "  fulfil call POST /v9/orders/700/accept '{\"reviewer_id\":100}' -H 'Idempotency-Key: accept-700'",
    usage: "call <METHOD> <path> [json] [-H 'Name: value']... [--token <token>] [--secret <secret>] [--base <url>]",
    load: () => import('./call.ts').then((m) => m.call),
  },
  {
    path: ['inventory', 'import'],
    brief: 'Imports ticket groups of one office from a JSON-lines file through the queue.',
    summary:
      "Imports ticket groups of one office from a JSON-lines file (one record per line, the detailed record's\n" +
      "fields) as inventory.upsert batches through the queue; the service's workers write them. The whole file is\n" +
      'checked first: any bad line is reported (line and field) and nothing is sent. The service is found as for\n' +
      '`issues close` (--base, REDIS_URL, DATA_DIR/service.json). Exits 0 imported, 1 refused or no service, 3 when\n' +
      'a batch was queued but not answered within --wait seconds (30): it stays queued, the later ones are not sent.',
    usage: 'inventory import <office_id> <file.jsonl> [--batch 10000] [--wait 30] [--base <url>]',
    load: () => import('./inventory-import.ts').then((m) => m.inventoryImport),
  },
  {
    path: ['inventory', 'export'],
    brief: 'Writes the inventory of one office as JSON lines.',
    summary:
      "Writes the inventory of one office as JSON lines, one record per line, in the index's order (remote_id;\n" +
      'service id with --detailed, which covers mapped records only). Reads the database directly, page by page;\n' +
      'a --detailed export can be imported again as it is.',
    usage: 'inventory export <office_id> [--state ALL|MAPPED|UNMAPPED] [--detailed] [--out file]',
    load: () => import('./inventory-export.ts').then((m) => m.inventoryExport),
  },
  {
    path: ['shipments', 'history'],
    brief: "Prints every transition of a shipment's order, across replacements.",
    summary: "Prints a shipment's whole history: every transition of its order, across the shipment's replacements.",
    usage: 'shipments history <shipment_id> [--json]',
    load: () => import('./shipments.ts').then((m) => m.shipmentsHistory),
  },
  {
    path: ['shipments', 'tracking'],
    brief: "Prints a mailed shipment's tracking number, carrier page and scans.",
    summary:
      "Prints a mailed shipment's tracking number with a link to the carrier's page, and every tracking event, oldest\n" +
      "first, with its source (the carrier's scan or the seller's report).",
    usage: 'shipments tracking <shipment_id> [--json]',
    load: () => import('./shipment-tracking.ts').then((m) => m.shipmentsTracking),
  },
  {
    path: ['shipments', 'airbill'],
    brief: "Downloads a mailed shipment's label to a file (seller or buyer).",
    summary:
      "Downloads a mailed shipment's label (GET /v9/shipments/:id/airbill) to -o/--out, by default airbill-<id>.pdf,\n" +
      'byte for byte. Signed with --token/--secret or FULFIL_TOKEN/FULFIL_SECRET; --base as for `call`.',
    usage: 'shipments airbill <shipment_id> [-o file.pdf] [--token … --secret …] [--base url]',
    load: () => import('./airbill.ts').then((m) => m.shipmentsAirbill),
  },
  {
    path: ['shipments', 'etickets', 'upload'],
    brief: "Uploads the PDFs of an Eticket shipment's tickets (seller).",
    summary:
      'Uploads e-tickets to a pending Eticket shipment through the running service (POST /v9/shipments/:id/etickets):\n' +
      'one PDF with a page per ticket, or one single-page PDF per ticket. --seats and --barcodes give one value per\n' +
      'file, comma-separated. Signed with --token/--secret or FULFIL_TOKEN/FULFIL_SECRET; --base or PORT names the service.',
    usage: 'shipments etickets upload <shipment_id> <file.pdf>… [--seats 12,13] [--barcodes A1,A2] [--token … --secret …] [--base url]',
    load: () => import('./etickets.ts').then((m) => m.eticketsUpload),
  },
  {
    path: ['shipments', 'etickets', 'list'],
    brief: "Lists a shipment's e-tickets and uploads (seller or buyer).",
    summary: "Lists a shipment's current e-tickets and every upload (GET /v9/shipments/:id/etickets), signed as for upload.",
    usage: 'shipments etickets list <shipment_id> [--token … --secret …] [--base url]',
    load: () => import('./etickets.ts').then((m) => m.eticketsList),
  },
  {
    path: ['shipments', 'etickets', 'get'],
    brief: 'Downloads one e-ticket to a file (seller or buyer).',
    summary: 'Downloads an e-ticket (GET /v9/shipments/:id/etickets/:eticket_id) to --out, by default eticket-<id>.pdf.',
    usage: 'shipments etickets get <shipment_id> <eticket_id> [--out file.pdf] [--token … --secret …] [--base url]',
    load: () => import('./etickets.ts').then((m) => m.eticketsGet),
  },
  {
    path: ['orders', 'list'],
    brief: 'Lists orders newest first, filtered, one page at a time.',
    summary:
      'Lists orders newest first, with the filters of the /ops/orders page as flags; --after takes the `next`\n' +
      'value a page ends with, for the next (older) page. Filters:\n' +
      '  --state pending|accepted|rejected|cancel_proposed|canceled|completed   --shipment-type <type of the live shipment>\n' +
      '  --seller-brokerage <id>  --seller-office <id>  --buyer-brokerage <id>\n' +
      '  --created-after/--created-before/--updated-after/--updated-before <2026-11-23 or ISO time with zone>\n' +
      '  --command unfinished|failed   (has a command still queued or running, or one that gave up)\n' +
      '  --webhook undelivered         (has a webhook delivery its endpoint has not acknowledged)\n' +
      '  --overdue                     (open and past its deadline, deliver_by)\n' +
      '  --due-within 24h              (open and due within 90m, 24h, 7d…, not yet overdue)',
    usage: 'orders list [filters] [--limit 50] [--after <next>] [--json]',
    load: () => import('./orders.ts').then((m) => m.ordersList),
  },
  {
    path: ['orders', 'show'],
    brief: 'Shows one order: deadline and timers, shipment chain, timeline, commands and webhook deliveries.',
    summary:
      'Shows one order as the /ops/orders/<id> page does: its facts, the shipment chain, the timeline, the commands and the webhook deliveries of its events.',
    usage: 'orders show <order_id> [--json]',
    load: () => import('./orders.ts').then((m) => m.ordersShow),
  },
  {
    path: ['issues', 'list'],
    brief: 'Lists delivery issues, escalated ones oldest first.',
    summary:
      "Lists the buyers' delivery issues from the database: --state open|seller_responded|escalated|resolved|closed\n" +
      '(escalated: in the order they wait for an operator; otherwise by when they were opened).\n' +
      "Live orders' issues only unless --mode test (the sandbox's) or --mode all.",
    usage: 'issues list [--state escalated] [--mode live|test|all] [--limit 100] [--json]',
    load: () => import('./issues.ts').then((m) => m.issuesList),
  },
  {
    path: ['issues', 'close'],
    brief: 'Closes an escalated delivery issue with an outcome (operator).',
    summary:
      "Closes an escalated delivery issue as an operator: the command delivery_issue.close, run by the service's\n" +
      'workers. The service is the one at --base <url> if given (it tells its queues to OPS_TOKEN; needs OPS_WRITE),\n' +
      'else REDIS_URL (with QUEUE_PREFIX) if set, else the one running with this DATA_DIR (DATA_DIR/service.json);\n' +
      'with nobody there it fails at once. Both parties get order.delivery_issue_closed.\n' +
      '--outcome seller_at_fault|buyer_at_fault|no_fault; --notes and --operator (who closed it) are kept with it.\n' +
      'Exits 0 closed, 1 refused or no service, 3 queued but not answered within --wait seconds (30).',
    usage:
      'issues close <issue_id> --outcome seller_at_fault|buyer_at_fault|no_fault [--notes …] [--operator name] [--wait 30] [--base <url>]',
    load: () => import('./issues.ts').then((m) => m.issuesClose),
  },
  {
    path: ['holds', 'list'],
    brief: "Lists an order's holds, oldest first.",
    summary: 'Lists every hold of an order from the database: active and released, why, who placed and released it.',
    usage: 'holds list <order_id> [--json]',
    load: () => import('./holds.ts').then((m) => m.holdsList),
  },
  {
    path: ['holds', 'place'],
    brief: 'Holds an order for any reason (operator).',
    summary:
      "Places a hold as an operator: the command order.hold_place, run by the service's workers (found as for\n" +
      '`issues close`). Any reason: venue_release_pending, fraud_review, payment_pending, event_postponed,\n' +
      'awaiting_buyer_info, other. Both parties get order.hold_placed. Exits 0 placed, 1 refused or no service,\n' +
      '3 queued but not answered within --wait seconds (30).',
    usage:
      'holds place <order_id> --reason <reason> [--notes …] [--handle …] [--release-at <ISO time>] [--seats 1,2] [--operator name] [--wait 30] [--base <url>]',
    load: () => import('./holds.ts').then((m) => m.holdsPlace),
  },
  {
    path: ['holds', 'release'],
    brief: 'Releases a hold of any reason (operator).',
    summary:
      "Releases a hold as an operator: the command hold.release, run by the service's workers. The deadline moves\n" +
      'by the time held as the reason gives it (docs/API.md, Holds). Exits as `holds place` does.',
    usage: 'holds release <hold_id> [--notes …] [--operator name] [--wait 30] [--base <url>]',
    load: () => import('./holds.ts').then((m) => m.holdsRelease),
  },
  {
    path: ['webhooks', 'list'],
    brief: "Lists the webhook endpoints of the credential's brokerage.",
    summary:
      'Lists the webhook endpoints of the brokerage the credential acts for (never their secrets).\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.',
    usage: 'webhooks list [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksList),
  },
  {
    path: ['webhooks', 'create'],
    brief: 'Creates a webhook endpoint and prints its signing secret once.',
    summary:
      "Creates a webhook endpoint for the credential's brokerage and prints its signing secret once. --kinds limits\nthe shipment event kinds it receives (created,updated,pickup_details,delivered,completed; default all).\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.",
    usage: 'webhooks create <url> [--kinds k1,k2] [--disabled] [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksCreate),
  },
  {
    path: ['webhooks', 'show'],
    brief: 'Shows one webhook endpoint.',
    summary:
      'Shows one webhook endpoint: url, kinds, whether enabled and why not.\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.',
    usage: 'webhooks show <id> [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksShow),
  },
  {
    path: ['webhooks', 'update'],
    brief: 'Changes the url, kinds or enabled state of a webhook endpoint.',
    summary:
      'Changes a webhook endpoint. --enabled true (or --enable) re-enables a disabled one: it resumes from its first\nundelivered event; --enabled false (or --disable) stops deliveries.\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.',
    usage: 'webhooks update <id> [--url <url>] [--kinds k1,k2] [--enabled true|false] [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksUpdate),
  },
  {
    path: ['webhooks', 'delete'],
    brief: 'Deletes a webhook endpoint and its deliveries log.',
    summary:
      'Deletes a webhook endpoint, what it was owed and its deliveries log.\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.',
    usage: 'webhooks delete <id> [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksDelete),
  },
  {
    path: ['webhooks', 'rotate-secret'],
    brief: 'Gives a webhook endpoint a new secret; the old one signs too for a grace period.',
    summary:
      'Gives a webhook endpoint a new signing secret, printed once; the previous one keeps signing beside it for\n--grace-seconds (default 86400).\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.',
    usage: 'webhooks rotate-secret <id> [--grace-seconds 86400] [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksRotateSecret),
  },
  {
    path: ['webhooks', 'deliveries'],
    brief: 'Lists the delivery attempts of a webhook endpoint, newest first.',
    summary:
      'Lists the deliveries log of a webhook endpoint, newest first: time, event, outcome, status or error, latency.\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.',
    usage:
      'webhooks deliveries <id> [--limit 50] [--before-id <id>] [--order <order_id>] [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksDeliveries),
  },
  {
    path: ['webhooks', 'redeliver'],
    brief: 'Sends one event to a webhook endpoint again.',
    summary:
      'Sends one event to a webhook endpoint again (same event id).\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.',
    usage: 'webhooks redeliver <id> <event_id> [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksRedeliver),
  },
  {
    path: ['webhooks', 'replay'],
    brief: "Sends an order's events, or every event since a time, again.",
    summary:
      'Sends every event of an order (--order), or every event since a time (--since, ISO 8601), to a webhook\nendpoint again, in seq order per order.\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.',
    usage: 'webhooks replay <id> --order <order_id> | --since <time> [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksReplay),
  },
  {
    path: ['webhooks', 'ping'],
    brief: 'Sends a ping test event to a webhook endpoint.',
    summary:
      'Sends a signed `ping` test event to a webhook endpoint now; its outcome shows in the deliveries log.\nCalls the running service with --token/--secret or FULFIL_TOKEN and FULFIL_SECRET; --base as for `call`.',
    usage: 'webhooks ping <id> [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./webhooks.ts').then((m) => m.webhooksPing),
  },
  {
    path: ['sandbox', 'order'],
    brief: 'Creates a test order to practise on (test credential).',
    summary:
      'Creates a test order (POST /v9/test_helpers/orders) with a test credential: your sandbox brokerage is the party\n' +
      '--role names, the simulated counterparty the other. --delivery tbd|flash|local_pickup, --quantity 1-100,\n' +
      "--in-hand-on YYYY-MM-DD, --clock <test clock id> (the order lives at that clock's time). Credentials and the\n" +
      'service as for `fulfil call`; prints the status and the order; exits 0 on 2xx, 1 otherwise.',
    usage:
      'sandbox order --role seller|buyer [--delivery tbd|flash|local_pickup] [--quantity n] [--in-hand-on date] [--clock <id>] [--token … --secret …] [--base url]',
    load: () => import('./sandbox.ts').then((m) => m.sandboxOrder),
  },
  {
    path: ['sandbox', 'act'],
    brief: "Makes a test order's simulated counterparty act (test credential).",
    summary:
      'Makes the simulated counterparty of a test order act (POST /v9/test_helpers/orders/:id/actions), through the\n' +
      'real commands, events and webhooks. As the buyer (you sell): download_etickets, accept_transfer, report_issue,\n' +
      'resolve_issue, escalate_issue, propose_cancel, accept_cancel, update_pickup; as the seller (you buy): accept,\n' +
      "reject, ship, respond_issue, reissue. --reason and --notes go to the action's command; --fields adds any other\n" +
      'fields as a JSON object. Prints the status and the answer; exits 0 on 2xx, 1 otherwise (a refusal, 422 …).\n' +
      '  fulfil sandbox act 7000000000000001 report_issue --reason not_received --notes "nothing came"',
    usage: 'sandbox act <order_id> <action> [--reason …] [--notes …] [--fields <json>] [--token … --secret …] [--base url]',
    load: () => import('./sandbox.ts').then((m) => m.sandboxAct),
  },
  {
    path: ['clocks', 'create'],
    brief: 'Creates a test clock (test credential).',
    summary:
      'Creates a test clock at --time (POST /v9/test_clocks). Test orders made with --clock <id> live at its time.\n' +
      '  fulfil clocks create --time 2027-01-01T00:00:00Z --name "January rehearsal"',
    usage: 'clocks create --time <iso> [--name …] [--token … --secret …] [--base url]',
    load: () => import('./clocks.ts').then((m) => m.clocksCreate),
  },
  {
    path: ['clocks', 'advance'],
    brief: 'Advances a test clock: what falls due fires, in time order.',
    summary:
      'Advances a test clock to --to (POST /v9/test_clocks/:id/advance): every timer of its orders due in between fires\n' +
      'once, in time order, through the real handlers, events and webhooks. The answer says "advancing"; show the clock\n' +
      'until it is "ready".\n' +
      '  fulfil clocks advance 7000000000000005 --to 2027-01-03T00:00:00Z',
    usage: 'clocks advance <clock_id> --to <iso> [--token … --secret …] [--base url]',
    load: () => import('./clocks.ts').then((m) => m.clocksAdvance),
  },
  {
    path: ['clocks', 'show'],
    brief: 'Shows a test clock, or every clock of your sandbox.',
    summary: 'Shows a test clock (GET /v9/test_clocks/:id), or without an id every clock of your sandbox (GET /v9/test_clocks).',
    usage: 'clocks show [<clock_id>] [--token … --secret …] [--base url]',
    load: () => import('./clocks.ts').then((m) => m.clocksShow),
  },
  {
    path: ['clocks', 'delete'],
    brief: 'Deletes a test clock and every test order on it.',
    summary: 'Deletes a test clock and its orders, their shipments, files, issues, events and deliveries (DELETE /v9/test_clocks/:id).',
    usage: 'clocks delete <clock_id> [--token … --secret …] [--base url]',
    load: () => import('./clocks.ts').then((m) => m.clocksDelete),
  },
  {
    path: ['jobs', 'list'],
    brief: 'Lists jobs in one state (default failed) across the queues.',
    summary:
      'Lists jobs in one state (default failed) across the queues, newest first, with when each was queued and\n' +
      'finished; the first line names the Redis and the prefix it read (the service found as for `issues close`).\n' +
      'States: waiting, active, delayed, completed, failed, prioritized, waiting-children.',
    usage: 'jobs list [--state failed] [--queue <name>] [--limit 50] [--json] [--base <url>]',
    load: () => import('./jobs.ts').then((m) => m.jobsList),
  },
  {
    path: ['jobs', 'show'],
    brief: 'Shows one job with its payload, failure reason and stack.',
    summary: 'Shows one job: its state, attempts, failure reason and stack, payload and result.',
    usage: 'jobs show <job_id> [--base <url>]',
    load: () => import('./jobs.ts').then((m) => m.jobsShow),
  },
  {
    path: ['jobs', 'retry'],
    brief: 'Puts failed jobs back in their queue.',
    summary:
      'Puts failed jobs back in their queue (by id, or every failed one with --all-failed). Safe to repeat: a\n' +
      'command that did finish answers its stored result and changes nothing.',
    usage: 'jobs retry <job_id...> | --all-failed [--queue <name>] [--base <url>]',
    load: () => import('./jobs.ts').then((m) => m.jobsRetry),
  },
];

/** What each group of commands is for (`fulfil <group>` lists its commands). */
export const GROUPS: Readonly<Record<string, string>> = {
  credentials: 'API credentials of brokerages and users.',
  inventory: 'Ticket-group inventory of an office, in and out as JSON lines.',
  shipments: 'Shipments and their history.',
  'shipments etickets': "A shipment's e-tickets: upload the PDFs (seller), list them and download one.",
  orders: 'Find orders and follow one (the terminal side of /ops/orders).',
  issues: 'Delivery issues buyers opened: list them, close an escalated one (the terminal side of /ops/delivery_issues).',
  holds: 'Holds on orders: list them, place and release one as an operator.',
  webhooks: "Webhook endpoints of the credential's brokerage, their deliveries log, redelivery and replay.",
  jobs: 'BullMQ jobs: inspect and replay.',
  sandbox: 'Test mode: test orders to practise on, and their simulated counterparty (test credential).',
  clocks: 'Test clocks: a time your sandbox owns and moves forward (test credential).',
};
