/**
 * Errors of the producer client itself. Refusals before anything is sent are the service's own
 * AppErrors (InvalidParams, Unavailable, IdempotencyConflict); these two say that the command WAS
 * taken but its result is not known: send it again with the same command id to learn it.
 */

/** `await` ran out before the command finished. It may still finish; nothing was undone. */
export class CommandTimeout extends Error {
  readonly code = 'command_timeout';
  constructor(
    readonly commandId: string,
    readonly timeoutMs: number,
  ) {
    super(
      `command ${commandId} did not finish within ${timeoutMs} ms; it may still finish: send it again with the same command id to get its result`,
    );
    this.name = 'CommandTimeout';
  }
}

/**
 * A CommandTimeout with its likely cause found: no worker consumes the command's queue under
 * this prefix on this Redis (a wrong `prefix`, another Redis, or the workers are down). The job
 * is queued and runs once a worker for this prefix starts.
 */
export class NoWorkers extends CommandTimeout {
  constructor(
    commandId: string,
    timeoutMs: number,
    readonly queue: string,
    readonly prefix: string,
  ) {
    super(commandId, timeoutMs);
    this.message =
      `command ${commandId} did not finish within ${timeoutMs} ms: no worker consumes queue "${queue}" under prefix "${prefix}" on this Redis. ` +
      `Check that prefix is the service's QUEUE_PREFIX and that its workers run; the command is queued and runs once one does.`;
    this.name = 'NoWorkers';
  }
}

/**
 * The job failed for good: every attempt hit an infrastructure error (domain rejections are
 * results, not failures). The command did not take effect; sending it again under a new
 * command id is safe, and under the same id it stays failed for as long as Redis keeps the job.
 */
export class CommandFailed extends Error {
  readonly code = 'command_failed';
  constructor(
    readonly commandId: string,
    readonly reason: string,
  ) {
    super(`command ${commandId} failed after all its attempts: ${reason}`);
    this.name = 'CommandFailed';
  }
}
