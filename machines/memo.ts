/**
 * The machines are pure and their states few: an answer worked out once for a (snapshot, event)
 * pair is the answer every time, so it is kept rather than rebuilt by xstate on each command.
 * Answers are frozen, so no caller can change one that the next command will get. Bounded:
 * persisted snapshots come from the database, and a map must not grow with whatever is there.
 */
export function memoized<A extends unknown[], R>(
  keyOf: (...args: A) => string,
  compute: (...args: A) => R,
  max = 1_000,
): (...args: A) => R {
  const answers = new Map<string, R>();
  return (...args: A): R => {
    const key = keyOf(...args);
    let answer = answers.get(key);
    if (answer === undefined) {
      // A copy: the answer may share objects with the arguments, which belong to the caller.
      answer = deepFreeze(structuredClone(compute(...args)));
      if (answers.size >= max) answers.clear();
      answers.set(key, answer);
    }
    return answer;
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
