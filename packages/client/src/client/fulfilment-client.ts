import type { Job, Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import {
  isSameCommand,
  requestFingerprint,
  completeBody,
  updateCommandFromBody,
  assertStorableJson,
  parseOrThrow,
  IdempotencyConflict,
  InvalidParams,
  toErrorBody,
  Unavailable,
  defaultCommandShards,
  MAX_COMMAND_SHARDS,
  isJobName,
  PAYLOAD_SCHEMAS,
  mailBody,
  trackingEventBody,
  trackingNumberBody,
} from '@fulfil/contract';
import type { z } from 'zod';
import { CommandQueues } from '../queues/command-queues.ts';
import { CommandWaiters, resultIn } from '../queues/waiters.ts';
import { blockingDuplicate, producerConnection, type RedisConnection } from '../redis/connections.ts';
import { clusterSafePrefix, isClusterUrl } from '../redis/redis-url.ts';
import { CommandFailed, CommandTimeout, NoWorkers } from './errors.ts';
import type {
  CommandOutcome,
  CommandResult,
  Envelope,
  JobMap,
  JobName,
  AcceptOrderInput,
  CancelOrderInput,
  RejectOrderInput,
  UpdateOrderInput,
  CompleteShipmentBody,
  InventoryMapInput,
  InventoryRemoveInput,
  InventoryUpsertInput,
  JobInput,
  UpdateShipmentBody,
} from '@fulfil/contract';
import { parseSendOptions, type SendOptions } from './options.ts';
import {
  inventoryCommand,
  splitShipmentId,
  type InventoryMapArgs,
  type InventoryRemoveArgs,
  type InventoryUpsertArgs,
  type WithShipmentId,
} from './arguments.ts';
import { outcomeWithin, whenConnected } from './redis-ready.ts';

export type { SendOptions, WithShipmentId, InventoryMapArgs, InventoryRemoveArgs, InventoryUpsertArgs };

export interface FulfilmentClientOptions {
  /**
   * `redis://…` of the service's Redis, or `redis+cluster://host:port,host:port` of its Redis
   * Cluster (the service's REDIS_URL). The client opens (and closes) its own connections.
   */
  redisUrl?: string;
  /**
   * Or a connection of yours: used for adding jobs, duplicated for awaiting results, and left
   * open by close(). Make it with `enableOfflineQueue: false` to keep the fail-fast behaviour.
   */
  connection?: RedisConnection;
  /** The service's QUEUE_PREFIX. Default `fulfil`; on a cluster wrapped in a hash tag (`{fulfil}`) as the service does. */
  prefix?: string;
  /**
   * The service's COMMAND_SHARDS: how many command queues orders are spread over. Default: the
   * COMMAND_SHARDS environment variable, else 1 on a single Redis and 3 on a cluster (as the
   * service). A count the service's workers do not consume is refused with ShardCountMismatch.
   */
  commandShards?: number;
  /** How long `await: true` waits when a call gives no timeoutMs. Default 10 000 ms. */
  defaultTimeoutMs?: number;
  /** How long a call waits for Redis to connect the first time before answering Unavailable. Default 2 000 ms. */
  connectTimeoutMs?: number;
}

/** A command taken (fire-and-forget). Its result is later in the service (GET /v9/commands/:id). */
export interface CommandSent {
  commandId: string;
}

export type { CommandOutcome };

/** `await: true` → the command's typed outcome; `await` false or absent → CommandSent. */
export type SendResult<O extends SendOptions, N extends JobName = JobName> = O extends { await: true }
  ? CommandOutcome<N>
  : O extends { await?: false | undefined }
    ? CommandSent
    : CommandSent | CommandOutcome<N>;

const DEFAULT_PREFIX = 'fulfil';
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
/** A missed completion event (reconnect, the very first subscription) costs at most this much. */
const RECHECK_MS = 1_000;

/**
 * The typed producer of the service's commands, for upstream systems: it validates a payload with
 * the schemas the HTTP routes use (a bad one is refused with InvalidParams before Redis sees it),
 * adds it as a BullMQ job whose id is the command id, and optionally awaits the job's result.
 * Needs only Redis; the workers behind the same Redis and prefix do the rest.
 */
export class FulfilmentClient {
  readonly prefix: string;
  readonly commandShards: number;
  readonly defaultTimeoutMs: number;
  private readonly connection: RedisConnection;
  private readonly ownsConnection: boolean;
  private readonly connectTimeoutMs: number;
  private readonly queues: CommandQueues;
  private waitersReady: Promise<CommandWaiters> | undefined;
  private readonly templates: RedisConnection[] = [];
  private closing: Promise<void> | undefined;
  private everReady = false;

  constructor(opts: FulfilmentClientOptions) {
    if ((opts.redisUrl === undefined) === (opts.connection === undefined)) {
      throw new TypeError('FulfilmentClient: give exactly one of redisUrl and connection');
    }
    const onCluster = opts.connection ? opts.connection instanceof Cluster : isClusterUrl(opts.redisUrl!);
    this.prefix = clusterSafePrefix(opts.prefix ?? DEFAULT_PREFIX, onCluster);
    this.commandShards = shardCountOption(opts.commandShards, onCluster);
    this.defaultTimeoutMs = opts.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.ownsConnection = opts.connection === undefined;
    this.connection = opts.connection ?? producerConnection(opts.redisUrl!);
    // Connection trouble surfaces as Unavailable on the calls; keep ioredis from logging it too.
    if (this.ownsConnection) this.connection.on('error', () => {});
    this.everReady = this.connection.status === 'ready';
    this.connection.once('ready', () => (this.everReady = true));
    this.queues = new CommandQueues({ prefix: this.prefix, connection: this.connection, shards: this.commandShards, checkShards: true });
  }

  /** Resolves once Redis answers (optional: every call connects first anyway); else Unavailable. */
  async ready(): Promise<void> {
    await this.connected();
  }

  /** order.accept: `POST /v9/orders/:order_id/accept` with body `{ reviewer_id, seats? }`. */
  async acceptOrder<O extends SendOptions>(command: AcceptOrderInput, opts: O): Promise<SendResult<O, 'order.accept'>> {
    return this.send('order.accept', command, opts);
  }

  /** order.reject: `POST /v9/orders/:order_id/reject` with body `{ reviewer_id, reason, rejection_notes? }` (the seller, pending orders). */
  async rejectOrder<O extends SendOptions>(command: RejectOrderInput, opts: O): Promise<SendResult<O, 'order.reject'>> {
    return this.send('order.reject', command, opts);
  }

  /** order.cancel: `POST /v9/orders/:order_id/cancel` with body `{ reason?, notes? }`: proposes, or confirms the other party's proposal. */
  async cancelOrder<O extends SendOptions>(command: CancelOrderInput, opts: O): Promise<SendResult<O, 'order.cancel'>> {
    return this.send('order.cancel', command, opts);
  }

  /** order.withdraw_cancel: `DELETE /v9/orders/:order_id/cancel` (the party that proposed it). */
  async withdrawOrderCancellation<O extends SendOptions>(
    command: { order_id: number },
    opts: O,
  ): Promise<SendResult<O, 'order.withdraw_cancel'>> {
    return this.send('order.withdraw_cancel', command, opts);
  }

  /** order.confirm_receipt: `POST /v9/orders/:order_id/confirm_receipt` (the buyer): the mailed tickets arrived. */
  async confirmOrderReceipt<O extends SendOptions>(
    command: { order_id: number },
    opts: O,
  ): Promise<SendResult<O, 'order.confirm_receipt'>> {
    return this.send('order.confirm_receipt', command, opts);
  }

  /** order.update: `PUT /v9/orders/:order_id` with body `{ in_hand_on }` (the seller): moves the deadline. */
  async updateOrder<O extends SendOptions>(command: UpdateOrderInput, opts: O): Promise<SendResult<O, 'order.update'>> {
    return this.send('order.update', command, opts);
  }

  /** shipment.update: `PUT /v9/shipments/:shipment_id` with the rest as its body. */
  async updateShipment<O extends SendOptions>(
    command: WithShipmentId<UpdateShipmentBody>,
    opts: O,
  ): Promise<SendResult<O, 'shipment.update'>> {
    const { id, body } = splitShipmentId(command);
    return this.dispatch('shipment.update', updateCommandFromBody(id, body as UpdateShipmentBody), opts);
  }

  /** shipment.complete: `PUT /v9/shipments/:shipment_id/complete` with the rest (or nothing) as its body. */
  async completeShipment<O extends SendOptions>(
    command: WithShipmentId<CompleteShipmentBody>,
    opts: O,
  ): Promise<SendResult<O, 'shipment.complete'>> {
    const { id, body } = splitShipmentId(command);
    const parsed = parseOrThrow(completeBody, body);
    return this.dispatch('shipment.complete', { ...parsed, shipment_id: id }, opts);
  }

  /**
   * shipment.etickets: makes files the service already stores (by sha256: uploaded before through
   * `POST /v9/shipments/:id/etickets`, whose answer names them) the shipment's e-tickets. New bytes
   * are uploaded over HTTP only: file bytes never travel through Redis.
   */
  async attachEtickets<O extends SendOptions>(
    command: JobInput<'shipment.etickets'>,
    opts: O,
  ): Promise<SendResult<O, 'shipment.etickets'>> {
    return this.send('shipment.etickets', command, opts);
  }

  /**
   * Mailed delivery: `PUT /v9/shipments/:shipment_id` with `type` (FedEx, UPS, USPS, ProvidedAirbill), an optional
   * `service_type` and `ship_to_address_attributes`. The shipment is replaced (a new id) by one of that type, pending.
   */
  async chooseMailedDelivery<O extends SendOptions>(
    command: WithShipmentId<z.input<typeof mailBody>>,
    opts: O,
  ): Promise<SendResult<O, 'shipment.update'>> {
    const { id, body } = splitShipmentId(command);
    const parsed = parseOrThrow(mailBody, body);
    return this.dispatch('shipment.update', updateCommandFromBody(id, parsed), opts);
  }

  /**
   * shipment.airbill: makes a label the service already stores (by sha256: uploaded or bought through
   * `POST /v9/shipments/:id/airbill`) the shipment's airbill, with its tracking number. `by`: the
   * seller, or the buyer of a ProvidedAirbill shipment. Label bytes travel over HTTP only.
   */
  async attachAirbill<O extends SendOptions>(command: JobInput<'shipment.airbill'>, opts: O): Promise<SendResult<O, 'shipment.airbill'>> {
    return this.send('shipment.airbill', command, opts);
  }

  /** shipment.tracking_event: the seller reports a tracking event (`POST /v9/shipments/:shipment_id/tracking_events`). */
  async addTrackingEvent<O extends SendOptions>(
    command: WithShipmentId<z.input<typeof trackingEventBody>>,
    opts: O,
  ): Promise<SendResult<O, 'shipment.tracking_event'>> {
    const { id, body } = splitShipmentId(command);
    const parsed = parseOrThrow(trackingEventBody, body);
    return this.dispatch('shipment.tracking_event', { ...parsed, shipment_id: id }, opts);
  }

  /** shipment.tracking_number: `PUT /v9/shipments/:shipment_id/tracking` with body `{ tracking_number }` (seller). */
  async setTrackingNumber<O extends SendOptions>(
    command: WithShipmentId<z.input<typeof trackingNumberBody>>,
    opts: O,
  ): Promise<SendResult<O, 'shipment.tracking_number'>> {
    const { id, body } = splitShipmentId(command);
    const parsed = parseOrThrow(trackingNumberBody, body);
    return this.dispatch('shipment.tracking_number', { ...parsed, shipment_id: id }, opts);
  }

  /** shipment.transfer_verification: a proof of transfer made of files the service already stores (by sha256). */
  async attachTransferVerification<O extends SendOptions>(
    command: JobInput<'shipment.transfer_verification'>,
    opts: O,
  ): Promise<SendResult<O, 'shipment.transfer_verification'>> {
    return this.send('shipment.transfer_verification', command, opts);
  }

  /** delivery_issue.open: `POST /v9/orders/:order_id/delivery_issues` with body `{ reason, seats?, notes? }` (the buyer); answered 201. */
  async openDeliveryIssue<O extends SendOptions>(
    command: JobInput<'delivery_issue.open'>,
    opts: O,
  ): Promise<SendResult<O, 'delivery_issue.open'>> {
    return this.send('delivery_issue.open', command, opts);
  }

  /** delivery_issue.respond: `POST /v9/delivery_issues/:issue_id/responses` with body `{ notes }` (the seller, no re-delivery). */
  async respondToDeliveryIssue<O extends SendOptions>(
    command: JobInput<'delivery_issue.respond'>,
    opts: O,
  ): Promise<SendResult<O, 'delivery_issue.respond'>> {
    return this.send('delivery_issue.respond', command, opts);
  }

  /** delivery_issue.resolve: `POST /v9/delivery_issues/:issue_id/resolve` (the buyer). */
  async resolveDeliveryIssue<O extends SendOptions>(
    command: JobInput<'delivery_issue.resolve'>,
    opts: O,
  ): Promise<SendResult<O, 'delivery_issue.resolve'>> {
    return this.send('delivery_issue.resolve', command, opts);
  }

  /** delivery_issue.escalate: `POST /v9/delivery_issues/:issue_id/escalate` (the buyer). */
  async escalateDeliveryIssue<O extends SendOptions>(
    command: JobInput<'delivery_issue.escalate'>,
    opts: O,
  ): Promise<SendResult<O, 'delivery_issue.escalate'>> {
    return this.send('delivery_issue.escalate', command, opts);
  }

  /**
   * order.hold_place: `POST /v9/orders/:order_id/holds` with body `{ reason, notes?, handle?, release_at?, seats? }`
   * (the seller); answered 201, or 200 with the hold its handle named first. `operator` makes it an
   * operator's hold (any reason), as `fulfil holds place` sends it.
   */
  async placeHold<O extends SendOptions>(command: JobInput<'order.hold_place'>, opts: O): Promise<SendResult<O, 'order.hold_place'>> {
    return this.send('order.hold_place', command, opts);
  }

  /** hold.release: `POST /v9/holds/:hold_id/release` (whoever may place its reason; `operator` as for placeHold). */
  async releaseHold<O extends SendOptions>(command: JobInput<'hold.release'>, opts: O): Promise<SendResult<O, 'hold.release'>> {
    return this.send('hold.release', command, opts);
  }

  /** hold.answer: `POST /v9/holds/:hold_id/answer` with body `{ notes }` (the buyer, awaiting_buyer_info holds). */
  async answerHold<O extends SendOptions>(command: JobInput<'hold.answer'>, opts: O): Promise<SendResult<O, 'hold.answer'>> {
    return this.send('hold.answer', command, opts);
  }

  /**
   * shipment.reissue: `POST /v9/shipments/:shipment_id/reissue` (the seller, while an issue is open):
   * new barcodes or link, and e-tickets the service already stores (by sha256; new bytes are
   * uploaded over HTTP only).
   */
  async reissueShipment<O extends SendOptions>(command: JobInput<'shipment.reissue'>, opts: O): Promise<SendResult<O, 'shipment.reissue'>> {
    return this.send('shipment.reissue', command, opts);
  }

  /** inventory.upsert: `{ office_id, records }`, ticket groups of one office, inserted or replaced by remote_id. */
  async upsertInventory<O extends SendOptions>(command: InventoryUpsertArgs, opts: O): Promise<SendResult<O, 'inventory.upsert'>> {
    return this.send('inventory.upsert', inventoryCommand(command, 'records') as InventoryUpsertInput, opts);
  }

  /** inventory.map: `{ office_id, mappings }`, map (id + event_id) or unmap (both null) ticket groups of one office. */
  async mapInventory<O extends SendOptions>(command: InventoryMapArgs, opts: O): Promise<SendResult<O, 'inventory.map'>> {
    return this.send('inventory.map', inventoryCommand(command, 'mappings') as InventoryMapInput, opts);
  }

  /** inventory.remove: `{ office_id, remote_ids }`, delete ticket groups of one office by remote_id. */
  async removeInventory<O extends SendOptions>(command: InventoryRemoveArgs, opts: O): Promise<SendResult<O, 'inventory.remove'>> {
    return this.send('inventory.remove', inventoryCommand(command, 'remote_ids') as InventoryRemoveInput, opts);
  }

  /** Any job of the job map, its payload checked by the schema its worker parses with. */
  async send<N extends JobName, O extends SendOptions>(name: N, payload: JobInput<N>, opts: O): Promise<SendResult<O, N>> {
    if (typeof name !== 'string' || !isJobName(name)) throw new InvalidParams(`name: unknown command ${String(name)}`, 'name');
    const parsed = parseOrThrow(PAYLOAD_SCHEMAS[name], payload, 'payload') as JobMap[N];
    return this.dispatch(name, parsed, opts);
  }

  /** Closes the queues, the result listeners and the connections the client opened (not one handed in). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const waiters = await this.waitersReady?.catch(() => undefined);
      await outcomeWithin(waiters?.close(), 5_000);
      // A queue whose connection never came up is still waiting on it, and closing it would
      // unhook the listener that keeps that wait's eventual failure handled: leave it be.
      if (this.everReady) await this.queues.close().catch(() => {});
      for (const t of this.templates) t.disconnect();
      if (this.ownsConnection) {
        if (this.connection.status === 'ready') await this.connection.quit().catch(() => this.connection.disconnect());
        else this.connection.disconnect();
      }
    })();
    return this.closing;
  }

  private async dispatch<N extends JobName, O extends SendOptions>(name: N, payload: JobMap[N], opts: O): Promise<SendResult<O, N>> {
    const { commandId, actor, wait, timeoutMs } = this.checkOptions(opts);
    assertStorableJson(payload, 'payload');
    if (this.closing) throw new Error('FulfilmentClient is closed');
    const envelope: Envelope<JobMap[N]> = {
      commandId,
      actor,
      // The same hash the HTTP side computes, so a reused id is judged the same way (run-command.ts).
      requestHash: requestFingerprint(name, payload),
      payload,
    };
    await this.connected();
    const queue = this.queues.queueFor(name, payload);
    if (!wait) {
      await this.queues.enqueue(name, envelope);
      // A job already under this id is left as it is: if it is another command, say so now.
      const job = await queue.getJob(commandId).catch(() => undefined);
      if (job && isConflict(job, name, envelope)) throw conflictError(commandId);
      return { commandId } as SendResult<O, N>;
    }
    return (await this.awaitResult(queue, name, envelope, timeoutMs)) as SendResult<O, N>;
  }

  /**
   * Listens before adding (one QueueEvents per queue for the whole client), then reads the job:
   * it may have finished before the listener saw it, or be a job of the same id that finished
   * long ago. A missed event costs at most RECHECK_MS, since the job is read again that often.
   */
  private async awaitResult<N extends JobName>(
    queue: Queue,
    name: N,
    envelope: Envelope<JobMap[N]>,
    timeoutMs: number,
  ): Promise<CommandOutcome<N>> {
    const { commandId } = envelope;
    const waiters = await this.waiters();
    const deadline = Date.now() + timeoutMs;
    let waiter = waiters.wait(commandId, Math.min(timeoutMs, RECHECK_MS));
    try {
      await this.queues.enqueue(name, envelope);
      for (;;) {
        const result = await this.resultOf(queue, name, envelope);
        if (result) return outcomeOf<N>(commandId, result);
        if (this.closing) throw new Error(`FulfilmentClient closed while awaiting command ${commandId}`);
        if (Date.now() >= deadline) throw await this.timeoutError(queue, commandId, timeoutMs);
        // The job under this id is this command's (resultOf found no other), so its completed
        // event carries this command's result: no read of the job needed.
        const woke = await waiter.done;
        if (woke && woke.event === 'completed' && woke.result) return outcomeOf<N>(commandId, woke.result);
        waiter = waiters.wait(commandId, Math.max(1, Math.min(deadline - Date.now(), RECHECK_MS)));
      }
    } finally {
      waiter.cancel();
    }
  }

  /** Why an awaited command timed out, when it can be told: no worker consumes its queue (BullMQ's worker list). */
  private async timeoutError(queue: Queue, commandId: string, timeoutMs: number): Promise<CommandTimeout> {
    const workers = await queue.getWorkersCount().catch(() => undefined);
    return workers === 0 ? new NoWorkers(commandId, timeoutMs, queue.name, this.prefix) : new CommandTimeout(commandId, timeoutMs);
  }

  /** The job's result when it has one; undefined while it runs (or Redis cannot tell right now). */
  private async resultOf<N extends JobName>(queue: Queue, name: N, envelope: Envelope<JobMap[N]>): Promise<CommandResult | undefined> {
    const { commandId } = envelope;
    let job: Job | undefined;
    try {
      job = await queue.getJob(commandId);
      if (!job) {
        // Gone from Redis (trimmed, or Redis lost it): add it again. The workers answer a
        // finished command from Postgres, so this cannot run it twice.
        await this.queues.enqueue(name, envelope);
        return undefined;
      }
      if (isConflict(job, name, envelope)) return { status: 409, body: toErrorBody(conflictError(commandId)) };
      const done = resultIn(job.returnvalue);
      if (done) return done;
      if (job.finishedOn === undefined) return undefined;
      const state = await job.getState();
      if (state === 'failed') throw new CommandFailed(commandId, job.failedReason || 'unknown reason');
      if (state === 'completed') return resultIn((await queue.getJob(commandId))?.returnvalue);
      return undefined;
    } catch (err) {
      if (err instanceof CommandFailed) throw err;
      return undefined; // the command was taken; only its result is not readable now
    }
  }

  /** The result listeners, made on the first awaited call and shared by every later one. */
  private waiters(): Promise<CommandWaiters> {
    this.waitersReady ??= (async () => {
      const waiters = new CommandWaiters(this.queues.places(), {
        // QueueEvents duplicates what it is given; the template itself never connects.
        connection: () => {
          const t = blockingDuplicate(this.connection);
          this.templates.push(t);
          return t;
        },
      });
      const ready = await outcomeWithin(waiters.ready(), this.connectTimeoutMs * 2);
      if (ready !== 'ok') {
        void outcomeWithin(waiters.close(), 5_000);
        throw new Unavailable('Redis did not answer the result listener in time; the command was not sent');
      }
      return waiters;
    })();
    const pending = this.waitersReady;
    pending.catch(() => {
      if (this.waitersReady === pending) this.waitersReady = undefined; // the next call tries again
    });
    return pending;
  }

  private connected(): Promise<void> {
    return whenConnected(this.connection, this.connectTimeoutMs);
  }

  private checkOptions(opts: SendOptions) {
    return parseSendOptions(opts, this.defaultTimeoutMs);
  }
}

function shardCountOption(given: number | undefined, onCluster: boolean): number {
  const env = process.env.COMMAND_SHARDS?.trim();
  const n = given ?? (env ? Number(env) : defaultCommandShards(onCluster));
  if (!Number.isInteger(n) || n < 1 || n > MAX_COMMAND_SHARDS) {
    throw new TypeError(`FulfilmentClient: commandShards must be an integer from 1 to ${MAX_COMMAND_SHARDS}`);
  }
  return n;
}

/** A job under this id that carries another command (run-command.ts judges the same way). */
/**
 * The workers answer exactly the bodies of the synchronous HTTP calls, whose shapes the service's
 * contract test checks against the same schemas the answer types come from (answers.ts).
 */
function outcomeOf<N extends JobName>(commandId: string, result: CommandResult): CommandOutcome<N> {
  return { commandId, ...result } as CommandOutcome<N>;
}

function isConflict(job: Job, name: JobName, envelope: Envelope<unknown>): boolean {
  const data = job.data as Partial<Envelope<unknown>> | undefined;
  return !isSameCommand(
    { name: job.name, brokerageId: data?.actor?.brokerageId ?? NaN, requestHash: data?.requestHash ?? '' },
    { name, brokerageId: envelope.actor.brokerageId, requestHash: envelope.requestHash },
  );
}

function conflictError(commandId: string): IdempotencyConflict {
  return new IdempotencyConflict(`command id ${commandId} was already used for another command`);
}
