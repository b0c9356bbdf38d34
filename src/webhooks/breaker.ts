import type { SendResult } from './send.ts';
import { retryDelayMs } from './backoff.ts';

export interface BreakerPolicy {
  /** Timeouts or connection failures in a row that open the breaker. */
  failures: number;
  /** The first wait before a probe; doubled (with jitter) after each failed probe, up to maxCooldownMs. */
  cooldownMs: number;
  maxCooldownMs: number;
  /** How long one probe call may take before another job may probe. */
  probeWindowMs: number;
}

interface State {
  /** Timeouts and connection failures since the last answer. */
  failures: number;
  /** Times in a row the breaker opened (1 at the first opening; each failed probe adds one). */
  opens: number;
  /** Set while open: no call before then, then one probe. */
  openUntil?: number;
  reason?: 'breaker' | 'retry_after';
  /** A probe is out until then. */
  probingUntil?: number;
}

/** May a job call the endpoint now: yes (maybe as the one probe), or not before untilMs. */
export type Gate = { pass: true; probe: boolean } | { pass: false; untilMs: number; reason: 'breaker' | 'retry_after' };

/**
 * A circuit breaker per endpoint, in this process. A receiver that keeps timing out or refusing
 * connections would otherwise hold a call slot for the whole call deadline on every attempt of
 * every chain; once `failures` such calls in a row fail the breaker opens, and the endpoint's
 * jobs wait in the queue (delayed), not in a slot, until the cool-down is over. Then one job
 * probes with a single call: an answer closes the breaker, a failure opens it again for twice as
 * long. A receiver's Retry-After on 429 or 503 holds the endpoint the same way until then. Any
 * answer (a status of any kind) closes it: a quick 500 holds no slot for long, and the chain's own
 * backoff and the retry window deal with it.
 */
export class Breakers {
  private readonly states = new Map<number, State>();

  constructor(
    private readonly policy: BreakerPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  gate(endpointId: number): Gate {
    const s = this.states.get(endpointId);
    if (s?.openUntil === undefined) return { pass: true, probe: false };
    const now = this.now();
    if (now < s.openUntil) return { pass: false, untilMs: s.openUntil, reason: s.reason ?? 'breaker' };
    if (s.probingUntil !== undefined && now < s.probingUntil)
      return { pass: false, untilMs: s.probingUntil, reason: s.reason ?? 'breaker' };
    s.probingUntil = now + this.policy.probeWindowMs;
    return { pass: true, probe: true };
  }

  /** Whether the endpoint is called freely (not open, not waiting on a probe). */
  closed(endpointId: number): boolean {
    return this.states.get(endpointId)?.openUntil === undefined;
  }

  /** Until when the endpoint is held back (open, or its probe out); undefined when it is closed. */
  heldUntil(endpointId: number): number | undefined {
    const s = this.states.get(endpointId);
    return s?.openUntil === undefined ? undefined : Math.max(s.openUntil, s.probingUntil ?? 0);
  }

  /** What a call ended in; `retryAfterMs` when the receiver said when to come back. */
  record(endpointId: number, result: Pick<SendResult, 'outcome' | 'retryAfterMs'>): void {
    if (result.retryAfterMs !== undefined) {
      const s = this.state(endpointId);
      Object.assign(s, { failures: 0, openUntil: this.now() + result.retryAfterMs, reason: 'retry_after', probingUntil: undefined });
    } else if (result.outcome === 'timeout' || result.outcome === 'network') {
      const s = this.state(endpointId);
      s.failures++;
      const probeFailed = s.openUntil !== undefined && s.probingUntil !== undefined;
      if (probeFailed || (s.openUntil === undefined && s.failures >= this.policy.failures)) {
        s.opens++;
        const cooldown = retryDelayMs(s.opens, {
          baseMs: this.policy.cooldownMs,
          maxMs: Math.max(this.policy.cooldownMs, this.policy.maxCooldownMs),
        });
        Object.assign(s, { openUntil: this.now() + cooldown, reason: 'breaker', probingUntil: undefined });
      }
    } else if (result.outcome !== 'refused_address') {
      // Answered: closed. (A refused address never reached the receiver and says nothing of it.)
      this.states.delete(endpointId);
    }
  }

  private state(endpointId: number): State {
    let s = this.states.get(endpointId);
    if (!s) this.states.set(endpointId, (s = { failures: 0, opens: 0 }));
    return s;
  }

  /** Endpoints whose breaker is open or waiting on a probe. */
  get openCount(): number {
    let n = 0;
    for (const s of this.states.values()) if (s.openUntil !== undefined) n++;
    return n;
  }
}
