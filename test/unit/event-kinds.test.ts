import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EVENT_KINDS, EVENT_TYPE_OF_KIND, EVENT_TYPES, eventKind, eventType } from '@fulfil/contract';
import { ORDER_STATES, SHIPMENT_STATES } from '../../src/db/schema/orders.ts';
import { orderEvent, publicEvent } from '../../src/http/openapi/response-bodies.ts';
import { createEndpointBody, EVERY_EVENT_KIND, updateEndpointBody } from '../../src/webhooks/endpoint-input.ts';

// The event kinds are one constant (packages/contract/src/events/event-kinds.ts); everything that
// lists them derives its list from it, so adding a kind there adds it everywhere.

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONSTANT_FILE = path.join(ROOT, 'packages/contract/src/events/event-kinds.ts');
const SOURCES = ['src', 'workers', 'machines', 'packages/contract/src', 'packages/client/src'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

// Some kinds are also states' names (an order is `canceled` or `completed`, as its events are):
// a list of states is not a list of kinds, so those kinds count only as types (`order.canceled`).
const STATES: readonly string[] = [...ORDER_STATES, ...SHIPMENT_STATES];
const KINDS_ONLY = EVENT_KINDS.filter((k) => !STATES.includes(k));
const KIND = `(?:(?:shipment|order)\\.(?:${EVENT_KINDS.join('|')})|${KINDS_ONLY.join('|')})`;
/** Two kinds (or two `shipment.<kind>`/`order.<kind>` types) quoted one after the other in a list or a union type. */
const WRITTEN_OUT = new RegExp(`(['"\`])${KIND}\\1\\s*[,|]\\s*(['"\`])${KIND}\\2`);

const isKindOrType = (v: unknown) => (KINDS_ONLY as readonly unknown[]).includes(v) || (EVENT_TYPES as readonly unknown[]).includes(v);

/** Every enum in a JSON document that holds two kinds or types or more (a shipment state's 'delivered' is not a list of kinds). */
function kindEnums(node: unknown, at = '#'): Array<{ at: string; values: unknown[] }> {
  if (!node || typeof node !== 'object') return [];
  const values = (node as { enum?: unknown }).enum;
  const here = Array.isArray(values) && values.filter(isKindOrType).length >= 2 ? [{ at, values }] : [];
  return [...here, ...Object.entries(node).flatMap(([k, v]) => kindEnums(v, `${at}/${k}`))];
}

describe('event kinds', () => {
  it('are written out only in the contract constant: no other source lists two of them', () => {
    const offenders = SOURCES.flatMap((dir) => sourceFiles(path.join(ROOT, dir)))
      .filter((file) => file !== CONSTANT_FILE)
      .filter((file) => WRITTEN_OUT.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file));
    expect(offenders, 'derive these lists from EVENT_KINDS (@fulfil/contract)').toEqual([]);
  });

  it('each type is its kind under the prefix of what it is about, so the stored kind names the type', () => {
    for (const kind of EVENT_KINDS) expect(EVENT_TYPE_OF_KIND[kind]).toMatch(new RegExp(`^(shipment|order)\\.${kind}$`));
  });

  it('the pattern catches a list written out, across lines too', () => {
    expect(WRITTEN_OUT.test(`z.enum(['created', 'updated'])`)).toBe(true);
    expect(WRITTEN_OUT.test(`[\n  "shipment.delivered",\n  "shipment.completed",\n]`)).toBe(true);
    expect(WRITTEN_OUT.test(`type K = 'pickup_details' | 'overdue';`)).toBe(true);
    expect(WRITTEN_OUT.test(`z.enum(['pending', 'delivered'])`)).toBe(false);
    expect(WRITTEN_OUT.test(`['accepted', 'canceled', 'completed']`)).toBe(false);
    expect(WRITTEN_OUT.test(`['order.canceled', 'shipment.completed']`)).toBe(true);
  });

  it('every zod enum of kinds or types has exactly the constant as its options', () => {
    const kinds = [...EVENT_KINDS];
    const types = EVENT_KINDS.map((k) => EVENT_TYPE_OF_KIND[k]);
    expect([...EVENT_TYPES]).toEqual(types);
    expect(eventKind.options).toEqual(kinds);
    expect(eventType.options).toEqual(types);
    expect(orderEvent.shape.kind.options).toEqual(kinds);
    expect(publicEvent.shape.type.options).toEqual(types);
    for (const body of [createEndpointBody, updateEndpointBody]) {
      // A filter names a kind by its kind or its type (D-132).
      const item = (body as z.ZodObject).shape.event_kinds.unwrap().element as z.ZodPipe<z.ZodEnum>;
      expect(item.in.options).toEqual([...kinds, EVERY_EVENT_KIND, ...types]);
    }
  });

  // The committed document, which test/integration/openapi-contract.test.ts holds equal to the served one.
  it('the OpenAPI document lists the constant wherever it lists kinds, and one webhook payload per kind', () => {
    const doc = JSON.parse(readFileSync(path.join(ROOT, 'docs/openapi.json'), 'utf8')) as { webhooks: Record<string, unknown> };
    const found = kindEnums(doc);
    expect(found.length).toBeGreaterThan(0);
    const kinds = [...EVENT_KINDS];
    const types = [...EVENT_TYPES];
    for (const { at, values } of found) {
      expect([kinds, [...kinds, EVERY_EVENT_KIND], types, [...kinds, EVERY_EVENT_KIND, ...types]], at).toContainEqual(values);
    }
    expect(Object.keys(doc.webhooks).sort()).toEqual([...types, 'ping'].sort());
  });
});
