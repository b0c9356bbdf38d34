// PLACEHOLDER: replaced by the real handler before this lands.
import { defineHandler } from './handler.ts';

export default defineHandler({
  name: 'order.accept',
  parse: (p) => p as never,
  async handle() {
    throw new Error('order.accept: not implemented yet');
  },
});
