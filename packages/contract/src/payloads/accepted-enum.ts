import { z } from 'zod';

/**
 * Every list of values a request may send, by its field: exactly what the service accepts, what
 * the OpenAPI document's `enum` says and what docs/API.md lists (D-131). A test compares the three.
 */
export const ACCEPTED_ENUMS: Array<{ field: string; values: readonly string[]; schema: z.ZodType }> = [];

/** The enum object zod makes of a list of values, spelled out so the published declarations need no inference (D-166). */
type EnumOf<T extends string> = { [K in T]: K };

/**
 * One field's accepted values: its values and its aliases (older or longer names, answered as the
 * value they stand for), all of them in the enum, spelled exactly (no case folding: a generated
 * client types each one). `describe` says what the aliases stand for.
 */
export function acceptedEnum<const V extends string, const A extends string = never>(
  field: string,
  values: readonly [V, ...V[]],
  aliases: Readonly<Record<A, V>> = {} as Record<A, V>,
): z.ZodPipe<z.ZodEnum<EnumOf<V | A>>, z.ZodTransform<V, V | A>> {
  const accepted = [...values, ...(Object.keys(aliases) as A[])] as [V | A, ...(V | A)[]];
  const schema = z
    .enum(accepted, { message: `must be one of ${accepted.join(', ')}` })
    .transform((v): V => (aliases as Record<string, V>)[v] ?? (v as V));
  ACCEPTED_ENUMS.push({ field, values: accepted, schema });
  return schema;
}

/** How docs/API.md lists an accepted enum: each value in backticks, in order, joined by commas. */
export function enumList(values: readonly string[]): string {
  return values.map((v) => `\`${v}\``).join(', ');
}
