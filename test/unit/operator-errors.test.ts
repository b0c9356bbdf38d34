import { NotFound } from '@fulfil/contract';
import { describe, expect, it } from 'vitest';
import { CredentialError } from '../../src/auth/credentials.ts';
import { CliFailure, UsageError, type CommandEntry } from '../../src/cli/command.ts';
import { tellFailure } from '../../src/cli/main.ts';
import { ConfigError } from '../../src/config.ts';
import { DriverUnpatched } from '../../src/db/driver-patch.ts';
import { EmbeddedDatabaseBusy } from '../../src/db/pglite-lock.ts';
import { DependencyUnreachable } from '../../src/infrastructure-errors.ts';
import { isOperatorError, OperatorError } from '../../src/operator-error.ts';
import { PrivateDirError } from '../../src/private-dir.ts';
import { NoRedisError } from '../../src/redis/resolve.ts';

// One mark for the errors an operator is told plainly at the terminal: the CLI decides by it, not
// by a list of names, so a new such error needs nothing but its base class.

const cmd: CommandEntry = {
  path: ['demo'],
  brief: 'A demo command.',
  summary: 'Does nothing.',
  usage: 'demo <token>',
  load: async () => ({ run: async () => 0 }),
};

function told(err: unknown) {
  const lines: string[] = [];
  const code = tellFailure(cmd, err, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
  return { code, text: lines.join('\n') };
}

describe('errors told to the operator', () => {
  it('marks every error whose message is the whole story, and no other', () => {
    const marked = [
      new ConfigError(['PORT: expected a number']),
      new NoRedisError(),
      new EmbeddedDatabaseBusy('/data/pglite', 42),
      new PrivateDirError('.data belongs to another user'),
      new DriverUnpatched('the Postgres driver is not patched'),
      new DependencyUnreachable('Postgres at db:5432 could not be reached'),
      new CredentialError('user 7 does not exist'),
      new CliFailure('cannot reach the service'),
      new UsageError('expected exactly one token'),
    ];
    for (const err of marked) expect(isOperatorError(err), err.name).toBe(true);
    expect(isOperatorError(new Error('a bug'))).toBe(false);
    expect(isOperatorError(new NotFound('order 7 not found'))).toBe(false);
    expect(isOperatorError('a string')).toBe(false);
  });

  it('keeps the names logs show', () => {
    expect(new ConfigError([]).name).toBe('ConfigError');
    expect(new EmbeddedDatabaseBusy('/d', 1).name).toBe('EmbeddedDatabaseBusy');
    expect(new DependencyUnreachable('x').name).toBe('DependencyUnreachable');
  });

  it('prints a marked error in one line and exits 1, whatever its class is called', () => {
    class ShinyNewProblem extends OperatorError {}
    expect(told(new ShinyNewProblem('the disk is full: free some space'))).toEqual({
      code: 1,
      text: 'fulfil demo: the disk is full: free some space',
    });
  });

  it('tells a usage mistake with the usage (exit 2), and anything else as unexpected with its cause', () => {
    const usage = told(new UsageError('expected exactly one token'));
    expect(usage.code).toBe(2);
    expect(usage.text).toBe('fulfil demo: expected exactly one token\n\nusage: fulfil demo <token>\n\nDoes nothing.');
    const bug = told(new Error('undefined is not a function', { cause: new Error('deep down') }));
    expect(bug.code).toBe(1);
    expect(bug.text.split('\n')[0]).toBe('fulfil demo: undefined is not a function (deep down)');
  });
});
