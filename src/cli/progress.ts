export interface ProgressSink {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/**
 * Progress of a long CLI job: a bar redrawn in place on a terminal, plain lines otherwise (logs,
 * pipes and CI keep every step, without carriage returns).
 */
export class Progress {
  private readonly started = Date.now();
  private lastDraw = 0;

  constructor(
    private readonly total: number,
    private readonly unit: string,
    private readonly sink: ProgressSink = process.stderr,
  ) {}

  /** `note` is what a plain line says about this step (a terminal shows the bar only). */
  update(done: number, note: string): void {
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? Math.round(done / seconds) : 0;
    const pct = this.total > 0 ? Math.floor((done / this.total) * 100) : 100;
    if (!this.sink.isTTY) {
      this.sink.write(`${note}: ${done}/${this.total} ${this.unit} (${pct}%, ${rate} ${this.unit}/s)\n`);
      return;
    }
    // A terminal is redrawn at most ten times a second; the last update always shows.
    if (done < this.total && Date.now() - this.lastDraw < 100) return;
    this.lastDraw = Date.now();
    const width = 30;
    const filled = this.total > 0 ? Math.round((done / this.total) * width) : width;
    const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
    this.sink.write(`\r${bar} ${String(pct).padStart(3)}% ${done}/${this.total} ${this.unit} · ${seconds.toFixed(0)} s · ${rate}/s `);
  }

  /** Leaves the terminal line and says something that is not part of the bar. */
  say(text: string): void {
    this.sink.write(this.sink.isTTY ? `\n${text}\n` : `${text}\n`);
  }

  done(): void {
    if (this.sink.isTTY) this.sink.write('\n');
  }
}
