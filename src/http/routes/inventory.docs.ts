import { inventoryQuery } from '../../inventory/index-query.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import * as bodies from '../openapi/response-bodies.ts';
import { ok, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

/** The reference of inventory.ts. */
export const INVENTORY_DOCS = {
  list: v9({
    tag: 'Inventory',
    operationId: 'listInventory',
    summary: "List an office's inventory",
    description:
      'Default mode: a bare array of {id, remote_id, event_id} ordered by remote_id from page[cursor]; next page: last remote_id + 1; paging needs state MAPPED or UNMAPPED. Detailed mode (`response=detailed`): `{"inventory":[…]}` of mapped records ordered by id; a page parameter is required; next page: last id + 1. office_id must be an office of your brokerage (401 otherwise).',
    query: {
      name: 'query',
      description: 'the whole query, one `key=value` per property (office_id=10&state=MAPPED&page[items]=100): exactly one of three modes',
      schema: jsonSchemaOf(inventoryQuery),
    },
    response: ok(bodies.inventoryPage, 'a page of records'),
    errors: [400, ...V9_ERRORS],
  }),
};
