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
