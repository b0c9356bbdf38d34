import { DEFAULT_MODE_MAX_ITEMS, DETAILED_MODE_MAX_ITEMS, inventoryQuery } from '../../inventory/index-query.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import { plainQueryOf } from '../openapi/query-modes.ts';
import * as bodies from '../openapi/response-bodies.ts';
import { ok, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

const modes = jsonSchemaOf(inventoryQuery);

/** The reference of inventory.ts. */
export const INVENTORY_DOCS = {
  list: v9({
    tag: 'Inventory',
    operationId: 'listInventory',
    summary: "List an office's inventory",
    description:
      'Three modes, told by the parameters given (`x-query-modes` states them as a `oneOf`; a query of no mode is 400). **Default, one page**: `office_id`, `state` optional, no page parameter. **Default, paging**: `state` MAPPED or UNMAPPED and at least one of `page[cursor]`, `page[items]`. Both answer a bare array of {id, remote_id, event_id} ordered by remote_id from page[cursor]; next page: last remote_id + 1. **Detailed** (`response=detailed`): `state` MAPPED or absent and at least one page parameter; answers `{"inventory":[…]}` of mapped records ordered by id; next page: last id + 1. office_id must be an office of your brokerage (401 otherwise).',
    querystring: plainQueryOf(modes, {
      office_id: 'office whose inventory is listed; must be of your brokerage (401 otherwise)',
      state: 'default ALL; MAPPED or UNMAPPED when paging in default mode; MAPPED or absent in detailed mode',
      response: '`detailed` for detailed mode; absent for default mode',
      'page[cursor]': 'first key of the page (default 1): a remote_id in default mode, an id in detailed mode; next page: last key + 1',
      'page[items]': `records per page: default and at most ${DEFAULT_MODE_MAX_ITEMS} in default mode, ${DETAILED_MODE_MAX_ITEMS} in detailed mode`,
    }),
    queryModes: modes,
    response: ok(bodies.inventoryPage, 'a page of records'),
    errors: [400, ...V9_ERRORS],
  }),
};
