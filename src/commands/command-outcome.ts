/**
 * A command's outcome: the one vocabulary of `GET /v9/commands/:id`, the order view, the CLI and
 * /metrics (docs/API.md §Command outcomes). `refused` is an answer (a 4xx the command was given
 * and stored, nothing changed); `failed` is no answer (every attempt hit an infrastructure error).
 */
export const COMMAND_OUTCOMES = ['queued', 'running', 'succeeded', 'refused', 'failed'] as const;
export type CommandOutcome = (typeof COMMAND_OUTCOMES)[number];

/** The outcome of a command row (its status column and stored answer status). */
export function commandOutcome(status: string, resultStatus: number | null | undefined): CommandOutcome {
  if (resultStatus !== null && resultStatus !== undefined) return answerOutcome(resultStatus);
  if (status === 'failed') return 'failed';
  return status === 'running' ? 'running' : 'queued';
}

/** The outcome a stored answer stands for. */
export function answerOutcome(status: number): 'succeeded' | 'refused' {
  return status < 400 ? 'succeeded' : 'refused';
}
