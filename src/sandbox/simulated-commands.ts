import { InvalidTransition, requestFingerprint, type Actor, type JobMap, type JobName } from '@fulfil/contract';
import type { Database } from '../db/database.ts';
import { findCommand } from '../db/sql/insert-command.ts';
import type { FileStore } from '../files/file-store.ts';
import type { InspectPool } from '../files/inspect-pool.ts';
import type { Dispatch } from '../queues/dispatcher.ts';
import { readOrder } from '../read/read-order.ts';
import { SIMULATED_BROKERAGE_ID } from './sandbox-twin.ts';

/**
 * The simulated counterparty acts as an API credential of its brokerage would: no user (D-190).
 * Where a command names a reviewer, it is the counterparty's one user (simulatedReviewer).
 */
export const SIMULATED_ACTOR: Actor = { brokerageId: SIMULATED_BROKERAGE_ID, userId: null, via: 'api' };

export interface SimulatedPartyDeps {
  database: Pick<Database, 'db' | 'rows'>;
  dispatcher: Dispatch;
  files: FileStore;
  inspect?: InspectPool | undefined;
}

/** One thing the simulated party did: a command and its answer, or a download (`eticket.download`). */
export interface SimulatedStep {
  command: string;
  status: number;
  body: unknown;
}

/** What the simulated party meets on the order: its state and live shipment, as it reads them itself. */
export interface OrderAsSeen {
  id: number;
  state: string;
  cancelProposedBy: string | null;
  shipment: { id: number; type: string; state: string } | null;
  quantity: number;
}

export async function orderAsSeen(deps: SimulatedPartyDeps, orderId: number): Promise<OrderAsSeen> {
  const order = (await readOrder(deps.database.db, orderId, { brokerageId: SIMULATED_BROKERAGE_ID })) as {
    id: number;
    state: string;
    cancel_proposed_by?: string | null;
    shipments: Array<{ id: number; type: string; state: string }>;
  };
  const [row] = await deps.database.rows<{ quantity: number }>(`select quantity from orders where id = $1::bigint`, [orderId]);
  const s = order.shipments[0];
  return {
    id: order.id,
    state: order.state,
    cancelProposedBy: order.cancel_proposed_by ?? null,
    shipment: s ? { id: s.id, type: s.type, state: s.state } : null,
    quantity: Number(row!.quantity),
  };
}

/** How long a step whose command outlasted the dispatcher's wait is waited for, and how often it is looked at. */
const STEP_WAIT_MS = 60_000;
const STEP_LOOK_MS = 100;

/**
 * Runs one real command as the simulated party: the same dispatch, queue, handler, events and
 * webhooks as a party's HTTP request, without an Idempotency-Key (each action is a new request).
 * A command that outlasts the dispatcher's wait is waited for here a while longer, since the next
 * step needs its answer and the command's row is the simulated brokerage's, not the caller's to poll.
 */
export async function runAsSimulated<N extends JobName>(deps: SimulatedPartyDeps, name: N, payload: JobMap[N]): Promise<SimulatedStep> {
  const outcome = await deps.dispatcher.dispatch({ name, actor: SIMULATED_ACTOR, payload, requestHash: requestFingerprint(name, payload) });
  if (outcome.kind === 'done') return { command: name, ...outcome.result };
  for (const until = Date.now() + STEP_WAIT_MS; Date.now() < until;) {
    const row = await findCommand(deps.database, outcome.commandId);
    if (row && row.resultStatus !== null) return { command: name, status: row.resultStatus, body: row.resultBody };
    await new Promise((resolve) => setTimeout(resolve, STEP_LOOK_MS));
  }
  // Taken and still running: the action stops here and says so (202); the order shows when it has run.
  return { command: name, status: 202, body: { id: outcome.commandId, status: 'queued' } };
}

/** The simulated counterparty's one user: the reviewer its accepts and rejects name (D-190). */
export const SIMULATED_REVIEWER_ID = SIMULATED_BROKERAGE_ID;

/** Made on first use, as a sandbox twin is: a row keyed by its fixed id, safe from several processes at once. */
export async function simulatedReviewer(deps: Pick<SimulatedPartyDeps, 'database'>): Promise<number> {
  await deps.database.rows(
    `insert into users (id, brokerage_id, name, email) values ($1::bigint, $2::bigint, 'Simulated reviewer', 'reviewer@sandbox.invalid')
     on conflict (id) do nothing`,
    [SIMULATED_REVIEWER_ID, SIMULATED_BROKERAGE_ID],
  );
  return SIMULATED_REVIEWER_ID;
}

/** The steps of one action, in order; the action stops at the first that does not succeed. */
export class SimulatedSteps {
  readonly done: SimulatedStep[] = [];

  constructor(private readonly deps: SimulatedPartyDeps) {}

  /** The command's answer when it succeeded; undefined when it was refused or is still running (the action stops). */
  async run<N extends JobName>(name: N, payload: JobMap[N]): Promise<Record<string, unknown> | undefined> {
    const step = await runAsSimulated(this.deps, name, payload);
    this.done.push(step);
    return step.status === 200 || step.status === 201 ? (step.body as Record<string, unknown>) : undefined;
  }

  record(step: SimulatedStep): void {
    this.done.push(step);
  }
}

/** The order's latest delivery issue, which the issue actions act on; its own state decides what they may do. */
export async function latestIssueOf(deps: Pick<SimulatedPartyDeps, 'database'>, order: OrderAsSeen): Promise<number> {
  const [row] = await deps.database.rows<{ id: string | number }>(
    `select id from delivery_issues where order_id = $1::bigint order by id desc limit 1`,
    [order.id],
  );
  if (!row) throw new InvalidTransition(`order ${order.id} has no delivery issue (it is ${order.state}): the buyer reports one first`);
  return Number(row.id);
}

/** The order's live shipment, which the delivery actions act on. */
export function shipmentOf(order: OrderAsSeen): NonNullable<OrderAsSeen['shipment']> {
  if (!order.shipment) throw new InvalidTransition(`order ${order.id} is ${order.state} and has no shipment: the seller accepts it first`);
  return order.shipment;
}
