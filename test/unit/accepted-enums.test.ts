import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_ENUMS, enumList, EVENT_TYPES } from '@fulfil/contract';

// One list per enum (docs/DECISIONS.md D-131): what the service accepts, the OpenAPI document's
// enum and docs/API.md's list are the same values, aliases included, spelled exactly.

const DOC = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
const API_MD = readFileSync(new URL('../../docs/API.md', import.meta.url), 'utf8');
const WEBHOOKS_MD = readFileSync(new URL('../../docs/WEBHOOKS.md', import.meta.url), 'utf8');

/** Every enum of a request (bodies and parameters, not answers), by the property or parameter it constrains. */
function requestEnums(): Array<{ name: string; values: string[]; where: string }> {
  const found: Array<{ name: string; values: string[]; where: string }> = [];
  const walk = (node: unknown, name: string, where: string): void => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, name, where));
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, any>;
    if (Array.isArray(o.enum)) found.push({ name, values: o.enum, where });
    for (const [k, v] of Object.entries(o)) {
      if (k === 'responses') continue;
      if (k === 'properties') for (const [p, s] of Object.entries<any>(v)) walk(s, p, where);
      else if (k === 'parameters' && Array.isArray(v)) for (const p of v) walk(p.schema, p.name, where);
      else walk(v, k === 'items' ? name : name, where);
    }
  };
  for (const [path, item] of Object.entries<any>(DOC.paths))
    for (const [method, op] of Object.entries<any>(item)) walk(op, '', `${method} ${path}`);
  return found;
}

describe('accepted enums', () => {
  it('the OpenAPI enum of each registered field is exactly what the service accepts', () => {
    const enums = requestEnums();
    for (const { field, values, schema } of ACCEPTED_ENUMS) {
      const documented = enums.filter((e) => e.name === field && JSON.stringify(e.values) === JSON.stringify(values));
      expect(documented.length, `${field}: ${values.join(', ')} is an enum of the document`).toBeGreaterThan(0);
      for (const v of values) expect(schema.safeParse(v).success, `${field}: ${v}`).toBe(true);
      for (const v of values.flatMap((x) => [x.toLowerCase(), x.toUpperCase(), ` ${x}`]).filter((x) => !values.includes(x))) {
        expect(schema.safeParse(v).success, `${field}: ${v} is not in the list, so it is refused`).toBe(false);
      }
    }
  });

  it("docs/API.md lists each registered enum exactly, and every request enum's values", () => {
    // An enum of the document that shares values with a registered list of its field is that list, no more, no fewer.
    for (const e of requestEnums()) {
      const lists = ACCEPTED_ENUMS.filter((a) => a.field === e.name && a.values.some((v) => e.values.includes(v))).map((a) => [
        ...a.values,
      ]);
      if (lists.length > 0) expect(lists, `${e.name} in ${e.where}`).toContainEqual(e.values);
    }
    for (const { field, values } of ACCEPTED_ENUMS) {
      // The kinds grow with the kinds table: docs/WEBHOOKS.md's table lists each type, its kind is the part after the dot.
      if (field === 'event_kinds') for (const t of EVENT_TYPES) expect(WEBHOOKS_MD, t).toContain(`| \`${t}\` |`);
      else expect(API_MD, field).toContain(enumList(values));
    }
    for (const e of requestEnums()) {
      if (e.name === 'country_code' || e.name === 'event_kinds') continue; // ISO 3166-1, named as such; the kinds table
      for (const v of e.values) expect(API_MD, `${e.name}: ${v} (${e.where})`).toContain(`\`${v}\``);
    }
  });

  it("every example body in docs/API.md sends a value of the field's enum", () => {
    const bodies = [...API_MD.matchAll(/```json\n([\s\S]*?)```/g)].flatMap(([, text]) => {
      try {
        return [JSON.parse(text!)];
      } catch {
        return [];
      }
    });
    let checked = 0;
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (!node || typeof node !== 'object') return;
      for (const [k, v] of Object.entries(node)) {
        const lists = ACCEPTED_ENUMS.filter((a) => a.field === k);
        // transfer_source is free text in an update (beside mobile_transfer_type), a platform on completion.
        const isUpdate = k === 'transfer_source' && 'mobile_transfer_type' in node;
        // An event's actor has a `reason` of its own (a short code), not the rejection's.
        const isActor = 'type' in node;
        if (lists.length > 0 && typeof v === 'string' && !isUpdate && !isActor) {
          checked++;
          expect(
            lists.some((l) => l.values.includes(v)),
            `${k}: ${v}`,
          ).toBe(true);
        }
        visit(v);
      }
    };
    bodies.forEach(visit);
    expect(checked).toBeGreaterThan(2);
  });
});
