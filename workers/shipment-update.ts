// PLACEHOLDER: replaced by the real handler before this lands.
import { defineHandler } from './handler.ts';

export default defineHandler({
  name: 'shipment.update',
  parse: (p) => p as never,
  async handle() {
    throw new Error('shipment.update: not implemented yet');
  },
});
