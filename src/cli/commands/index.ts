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
    usage: 'start [--role all|api|worker] [--seed <fixture.json>]',
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
      'once; the secret cannot be shown again.',
    usage: 'credentials create --brokerage <id> [--user <id>] [--json]',
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
      'Sends one signed request to a running service and prints the status and the JSON answer; exits 0 on 2xx,\n' +
      '1 otherwise. Credentials come from --token/--secret, or from FULFIL_TOKEN and FULFIL_SECRET (which keeps\n' +
      'the secret out of the shell history). --base defaults to http://127.0.0.1:$PORT (8080). Examples:\n' +
      '  fulfil call GET "/v9/inventory?office_id=10&state=ALL"\n' +
      '  fulfil call POST /v9/orders/700/accept \'{"reviewer_id":100}\'',
    usage: 'call <METHOD> <path> [json] [--token <token>] [--secret <secret>] [--base <url>]',
    load: () => import('./call.ts').then((m) => m.call),
  },
  {
    path: ['inventory', 'import'],
    brief: 'Imports ticket groups of one office from a JSON-lines file through the queue.',
    summary:
      "Imports ticket groups of one office from a JSON-lines file (one record per line, the detailed record's\n" +
      "fields) as inventory.upsert batches through the queue; the service's workers write them. The whole file is\n" +
      'checked first: any bad line is reported (line and field) and nothing is sent.',
    usage: 'inventory import <office_id> <file.jsonl> [--batch 10000]',
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
    path: ['jobs', 'list'],
    brief: 'Lists jobs in one state (default failed) across the queues.',
    summary:
      'Lists jobs in one state (default failed) across the queues, newest first, with when each was queued and\n' +
      'finished; the first line names the Redis and the prefix it read.\n' +
      'States: waiting, active, delayed, completed, failed, prioritized, waiting-children.',
    usage: 'jobs list [--state failed] [--queue <name>] [--limit 50] [--json]',
    load: () => import('./jobs.ts').then((m) => m.jobsList),
  },
  {
    path: ['jobs', 'show'],
    brief: 'Shows one job with its payload, failure reason and stack.',
    summary: 'Shows one job: its state, attempts, failure reason and stack, payload and result.',
    usage: 'jobs show <job_id>',
    load: () => import('./jobs.ts').then((m) => m.jobsShow),
  },
  {
    path: ['jobs', 'retry'],
    brief: 'Puts failed jobs back in their queue.',
    summary:
      'Puts failed jobs back in their queue (by id, or every failed one with --all-failed). Safe to repeat: a\n' +
      'command that did finish answers its stored result and changes nothing.',
    usage: 'jobs retry <job_id...> | --all-failed [--queue <name>]',
    load: () => import('./jobs.ts').then((m) => m.jobsRetry),
  },
];

/** What each group of commands is for (`fulfil <group>` lists its commands). */
export const GROUPS: Readonly<Record<string, string>> = {
  credentials: 'API credentials of brokerages and users.',
  inventory: 'Ticket-group inventory of an office, in and out as JSON lines.',
  shipments: 'Shipments and their history.',
  jobs: 'BullMQ jobs: inspect and replay.',
};
