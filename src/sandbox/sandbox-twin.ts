import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';

/** The simulated counterparty: the other party of every test order (drizzle/0028_sandbox.sql). */
export const SIMULATED_BROKERAGE_ID = 7_000_000_000_000_000;
export const SIMULATED_OFFICE_ID = 7_000_000_000_000_000;

/** Why a twin cannot be had: no such brokerage, or it is itself a sandbox one. */
export class NoSandboxTwin extends Error {}

/**
 * The sandbox twin of a live brokerage, made on first use (D-148): a brokerage of its own, so the
 * tenancy checks that keep one brokerage from another's orders keep test data from live data
 * too, with an office for each live office (made for offices added since, too). Safe to call
 * at once from several processes: the twin and its offices are keyed by what they mirror.
 */
export async function sandboxTwinOf(ex: Executor, liveBrokerageId: number): Promise<number> {
  const [live] = await query<{ livemode: boolean; name: string }>(
    ex,
    sql`select livemode, name from brokerages where id = ${liveBrokerageId}`,
  );
  if (!live) throw new NoSandboxTwin(`brokerage ${liveBrokerageId} does not exist`);
  if (!live.livemode) throw new NoSandboxTwin(`brokerage ${liveBrokerageId} is a sandbox brokerage: name the live one`);
  await query(
    ex,
    sql`insert into brokerages (id, name, livemode, sandbox_of)
        values (nextval('sandbox_ids'), ${`${live.name} (test mode)`}, false, ${liveBrokerageId})
        on conflict (sandbox_of) do nothing`,
  );
  const [twin] = await query<{ id: string | number }>(ex, sql`select id from brokerages where sandbox_of = ${liveBrokerageId}`);
  const twinId = Number(twin!.id);
  await query(
    ex,
    sql`insert into offices (id, brokerage_id, name, sandbox_of)
        select nextval('sandbox_ids'), ${twinId}, name, id from offices where brokerage_id = ${liveBrokerageId} order by id
        on conflict (sandbox_of) do nothing`,
  );
  return twinId;
}
