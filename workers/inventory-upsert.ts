// PLACEHOLDER: replaced by the real handler before this lands.
import { defineHandler } from './handler.ts';

export default defineHandler({
  name: 'inventory.upsert',
  parse: (p) => p as never,
  async handle() {
    throw new Error('inventory.upsert: not implemented yet');
  },
});
