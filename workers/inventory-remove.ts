// PLACEHOLDER: replaced by the real handler before this lands.
import { defineHandler } from './handler.ts';

export default defineHandler({
  name: 'inventory.remove',
  parse: (p) => p as never,
  async handle() {
    throw new Error('inventory.remove: not implemented yet');
  },
});
