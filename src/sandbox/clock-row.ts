/** A test_clocks row (drizzle/0029) as the sandbox reads it, and as the API answers it. */
export interface ClockRow {
  id: number;
  brokerageId: number;
  name: string | null;
  frozenTime: Date;
  status: 'ready' | 'advancing';
  advanceTo: Date | null;
  createdAt: Date;
}

export const CLOCK_COLUMNS = `id, brokerage_id as "brokerageId", name, frozen_time as "frozenTime", status, advance_to as "advanceTo", created_at as "createdAt"`;

export const toClockRow = (r: Record<string, unknown>): ClockRow => ({
  ...(r as unknown as ClockRow),
  id: Number(r.id),
  brokerageId: Number(r.brokerageId),
  frozenTime: new Date(r.frozenTime as string),
  advanceTo: r.advanceTo === null ? null : new Date(r.advanceTo as string),
  createdAt: new Date(r.createdAt as string),
});

/** A clock as the API answers it. */
export function clockJson(c: ClockRow) {
  return {
    id: c.id,
    object: 'test_clock' as const,
    name: c.name,
    frozen_time: c.frozenTime.toISOString(),
    status: c.status,
    advancing_to: c.advanceTo?.toISOString() ?? null,
    created_at: c.createdAt.toISOString(),
    livemode: false as const,
  };
}
