import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SHIPMENT_EVENT_KINDS, SHIPMENT_EVENT_TYPES, shipmentEventKind, shipmentEventType } from '@fulfil/contract';
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

const KIND = `(?:shipment\\.)?(?:${SHIPMENT_EVENT_KINDS.join('|')})`;
/** Two kinds (or two `shipment.<kind>` types) quoted one after the other in a list or a union type. */
const WRITTEN_OUT = new RegExp(`(['"\`])${KIND}\\1\\s*[,|]\\s*(['"\`])${KIND}\\2`);

const isKindOrType = (v: unknown) =>
  (SHIPMENT_EVENT_KINDS as readonly unknown[]).includes(v) || (SHIPMENT_EVENT_TYPES as readonly unknown[]).includes(v);

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
    expect(offenders, 'derive these lists from SHIPMENT_EVENT_KINDS (@fulfil/contract)').toEqual([]);
  });

  it('the pattern catches a list written out, across lines too', () => {
    expect(WRITTEN_OUT.test(`z.enum(['created', 'updated'])`)).toBe(true);
    expect(WRITTEN_OUT.test(`[\n  "shipment.delivered",\n  "shipment.completed",\n]`)).toBe(true);
    expect(WRITTEN_OUT.test(`type K = 'pickup_details' | 'completed';`)).toBe(true);
    expect(WRITTEN_OUT.test(`z.enum(['pending', 'delivered'])`)).toBe(false);
  });

  it('every zod enum of kinds or types has exactly the constant as its options', () => {
    const kinds = [...SHIPMENT_EVENT_KINDS];
    const types = SHIPMENT_EVENT_KINDS.map((k) => `shipment.${k}`);
    expect([...SHIPMENT_EVENT_TYPES]).toEqual(types);
    expect(shipmentEventKind.options).toEqual(kinds);
    expect(shipmentEventType.options).toEqual(types);
    expect(orderEvent.shape.kind.options).toEqual(kinds);
    expect(publicEvent.shape.type.options).toEqual(types);
    for (const body of [createEndpointBody, updateEndpointBody]) {
      const item = (body as z.ZodObject).shape.event_kinds.unwrap().element as z.ZodEnum;
      expect(item.options).toEqual([...kinds, EVERY_EVENT_KIND]);
    }
  });

  // The committed document, which test/integration/openapi-contract.test.ts holds equal to the served one.
  it('the OpenAPI document lists the constant wherever it lists kinds, and one webhook payload per kind', () => {
    const doc = JSON.parse(readFileSync(path.join(ROOT, 'docs/openapi.json'), 'utf8')) as { webhooks: Record<string, unknown> };
    const found = kindEnums(doc);
    expect(found.length).toBeGreaterThan(0);
    const kinds = [...SHIPMENT_EVENT_KINDS];
    const types = SHIPMENT_EVENT_KINDS.map((k) => `shipment.${k}`);
    for (const { at, values } of found) {
      expect([kinds, [...kinds, EVERY_EVENT_KIND], types], at).toContainEqual(values);
    }
    expect(Object.keys(doc.webhooks).sort()).toEqual([...types, 'ping'].sort());
  });
});
