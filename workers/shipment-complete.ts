// PLACEHOLDER: replaced by the real handler before this lands.
import { defineHandler } from './handler.ts';

export default defineHandler({
  name: 'shipment.complete',
  parse: (p) => p as never,
  async handle() {
    throw new Error('shipment.complete: not implemented yet');
  },
});
