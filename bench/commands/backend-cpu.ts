import type postgres from 'postgres';

/**
 * CPU seconds of the Postgres backends serving one database, sampled from /proc while a run
 * goes on. The machine's Postgres is shared (other tests, other benchmarks), so the whole
 * postmaster tree's CPU measures everyone; and a backend that exits takes its CPU figure with it,
 * so a tree sum can even go down. Sampling the backends of one database every `everyMs` and
 * keeping each one's last figure counts only this run's own work, also for backends that have
 * gone by the end (up to one sample's worth).
 */
export class BackendCpu {
  private readonly last = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> = Promise.resolve();

  constructor(
    private readonly admin: postgres.Sql,
    private readonly database: string,
    private readonly cpuOf: (pid: number) => number,
    private readonly everyMs = 200,
  ) {}

  start(): void {
    this.timer = setInterval(() => void (this.sampling = this.sample()), this.everyMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sampling;
  }

  /** Seconds so far, over every backend of the database seen since start. */
  async total(): Promise<number> {
    await this.sample();
    let sum = 0;
    for (const s of this.last.values()) sum += s;
    return sum;
  }

  private async sample(): Promise<void> {
    const rows = await this.admin<
      { pid: number }[]
    >`select pid from pg_stat_activity where datname = ${this.database} and pid <> pg_backend_pid()`.catch(() => [] as { pid: number }[]);
    for (const { pid } of rows) {
      const cpu = this.cpuOf(pid);
      if (cpu > 0) this.last.set(pid, cpu);
    }
  }
}
