/**
 * Statements written with named placeholders instead of counted `$n`. The text is built once, at
 * module load, by a function that interpolates `${p.name}`: each name becomes `$n` in the order it
 * first appears (a name used twice is one parameter), so the text is a constant and postgres.js
 * keeps preparing it once per connection. `params` turns a values object into the ordered array.
 *
 * Typed both ways: the text can only name what the values type declares, and a call must give
 * every declared value, so a placeholder without a value is a compile error, not a `$n` shifted
 * by one. Casts stay in the text (`${p.id}::bigint`), where the embedded PGlite needs them.
 */
export type Placeholders<V> = { readonly [K in keyof V]-?: string };

export interface NamedStatement<V> {
  readonly text: string;
  /** The names in `$n` order (`$1` first). */
  readonly names: readonly string[];
  params(values: V): unknown[];
}

export function named<V extends object>(write: (p: Placeholders<V>) => string): NamedStatement<V> {
  const names: string[] = [];
  const placeholders = new Proxy(
    {},
    {
      get(_target, name) {
        if (typeof name !== 'string') return undefined;
        const at = names.indexOf(name);
        return `$${at >= 0 ? at + 1 : names.push(name)}`;
      },
    },
  );
  const text = write(placeholders as Placeholders<V>);
  return {
    text,
    names,
    params(values) {
      const given = values as Record<string, unknown>;
      return names.map((name) => {
        const value = given[name];
        // postgres.js would refuse it anyway, but without saying which one: say it here.
        if (value === undefined) throw new Error(`statement parameter ${name} has no value (null for SQL NULL)`);
        return value;
      });
    },
  };
}
