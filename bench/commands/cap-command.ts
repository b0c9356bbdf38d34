import type postgres from 'postgres';
import { httpCaller, isPickupOrder, SELLER, type FlowAnswer } from './flows.ts';
import { closedLoop, LoadStop, Recorder, type Summary } from './load.ts';
import { freePort, startServiceProcess, type ServiceProcess } from './processes.ts';
import { warmUp } from './warm-up.ts';

type Call = ReturnType<typeof httpCaller>;
type Phase = (name: string, callers: number, flow: (rec: Recorder) => Promise<void>, watch: ServiceProcess[]) => Promise<Summary>;

/** The row's name in the report, where it is set beside the cap's. */
export const CAP_COMMAND = "service, one process, the cap's command";

/**
 * The design cap's own command sent to the service: a shipment's first delivery update (TBD →
 * XMobile), on orders accepted just before, untimed. The mixed flows put an accept, a completion
 * and the pickup join's contact rows into every average command, which the cap never runs; this
 * row compares like with like, beside the mixed flows, not instead of them.
 */
export async function capCommandRows(o: {
  env: Record<string, string>;
  levels: number[];
  seconds: number;
  /** Untimed mixed flows first (warm-up.ts), as before the other rows. */
  warmSeconds: number;
  takeOrder: () => number;
  sql: postgres.Sql;
  phase: Phase;
}): Promise<void> {
  const port = await freePort();
  const svc = await startServiceProcess('all', { ...o.env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`);
  try {
    await warmUp(`http://127.0.0.1:${port}`, o.takeOrder, o.warmSeconds);
    const call = httpCaller(`http://127.0.0.1:${port}`, 128);
    for (const callers of o.levels) {
      // More than one caller can send in the time (the cap reaches about 1,300 commands/s here).
      const pool = await acceptOrders(call, o.seconds * (callers === 1 ? 700 : 2000), o.takeOrder);
      // As the cap's schema ends: what the untimed accepts left to vacuum is not the timed row's work.
      await o.sql.unsafe('vacuum analyze orders, shipments, commands, outbox, shipment_events, event_feed');
      await o.phase(CAP_COMMAND, callers, updateEach(call, pool), [svc]);
    }
  } finally {
    await svc.stop();
  }
}

/** Accepts `count` delivered-later orders at 32 callers; returns their first shipments' ids. */
async function acceptOrders(call: Call, count: number, takeOrder: () => number): Promise<number[]> {
  const shipments: number[] = [];
  const nextTbdOrder = () => {
    let id = takeOrder();
    while (isPickupOrder(id)) id = takeOrder();
    return id;
  };
  let refused: Error | undefined;
  await closedLoop(32, 3600, async () => {
    // One refusal stops every caller, not only the one that met it.
    while (shipments.length < count && !refused) {
      const res = await call(SELLER, 'POST', `/v9/orders/${nextTbdOrder()}/accept`, { reviewer_id: 100 });
      if (res.status !== 200) throw (refused = new Error(`accept before the cap's command: ${res.status} ${res.text.slice(0, 200)}`));
      shipments.push((JSON.parse(res.text) as FlowAnswer).shipments[0]!.id);
    }
  });
  return shipments;
}

/** One call of the cap's command per accepted shipment. */
function updateEach(call: Call, shipments: number[]) {
  let next = 0;
  return async (rec: Recorder): Promise<void> => {
    const id = shipments[next++];
    if (id === undefined) throw new PoolExhausted();
    const res = await rec.time(() => call(SELLER, 'PUT', `/v9/shipments/${id}`, { mobile_transfer_type: 'XMobile' }));
    if (res.status !== 200) throw new Error(`${res.status} ${res.text.slice(0, 200)}`);
  };
}

/** Ends the phase: a row that ran out of accepted orders would spin on errors until its time is up. */
class PoolExhausted extends LoadStop {
  constructor() {
    super("out of accepted orders for the cap's command: raise the pool in bench/commands/cap-command.ts or lower --seconds");
  }
}
