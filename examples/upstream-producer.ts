/**
 * An upstream system driving one order through the queues with FulfilmentClient (@fulfil/client).
 *
 *   npm start                              # the service (workers included)
 *   npx fulfil seed fixtures/demo.json     # brokerage 1 sells order 701 (TBD delivery)
 *   node --conditions=fulfil-source --import tsx examples/upstream-producer.ts
 *
 * Env: REDIS_URL (default redis://127.0.0.1:6379) and QUEUE_PREFIX (default fulfil), the same
 * values the service runs with. The command ids are fixed, so running this again changes nothing
 * and prints the same results: the service answers a known command id with its first result.
 */
import { CommandTimeout, FulfilmentClient, InvalidParams, Unavailable, type CommandOutcome } from '@fulfil/client'; // '@fulfil/client' once installed

const SELLER_BROKERAGE = 1;
const REVIEWER = 100;
const ORDER = 701;

const client = new FulfilmentClient({
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  prefix: process.env.QUEUE_PREFIX ?? 'fulfil',
  defaultTimeoutMs: 15_000,
});

function show(step: string, r: CommandOutcome): void {
  console.log(`${step}: ${r.status} (command ${r.commandId})\n${JSON.stringify(r.body, null, 2)}`);
}

/** A rejection is a result (the HTTP status and error body), not an exception. */
function ok(step: string, r: CommandOutcome): any {
  show(step, r);
  if (r.status !== 200) throw new Error(`${step} was refused with ${r.status}`);
  return r.body;
}

try {
  // A bad payload never leaves the process: InvalidParams names the field. (TypeScript already
  // refuses this one; a JavaScript caller gets the runtime check.)
  try {
    // @ts-expect-error: 'Pigeon' is not a mobile_transfer_type
    await client.updateShipment({ shipment_id: 1, mobile_transfer_type: 'Pigeon' }, { brokerageId: SELLER_BROKERAGE });
  } catch (err) {
    if (!(err instanceof InvalidParams)) throw err;
    console.log(`refused before sending: ${err.message}`);
  }

  const seller = { brokerageId: SELLER_BROKERAGE, await: true } as const;

  const order = ok(
    'accept',
    await client.acceptOrder({ order_id: ORDER, reviewer_id: REVIEWER }, { ...seller, commandId: `example-accept-${ORDER}` }),
  );
  const tbd = order.shipments[0];

  const link = ok(
    'update',
    await client.updateShipment(
      { shipment_id: tbd.id, mobile_transfer_type: 'XMobileLink', transfer_source: 'example' },
      { ...seller, commandId: `example-update-${ORDER}` },
    ),
  );

  ok(
    'complete',
    await client.completeShipment(
      { shipment_id: link.id, x_mobile_link: 'https://claim.example.test/701' },
      { ...seller, commandId: `example-complete-${ORDER}` },
    ),
  );
} catch (err) {
  if (err instanceof Unavailable) console.error(`Redis is not reachable at the given REDIS_URL: ${err.message}`);
  else if (err instanceof CommandTimeout)
    console.error(`no result in time (are the workers running on prefix ${client.prefix}?): ${err.message}`);
  else console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await client.close();
}
