import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';

/**
 * Reading a PDF inflates its object and cross-reference streams (the only streams a check reads),
 * and a filter chain such as `[/FlateDecode /FlateDecode]` turns 1.5 KB into 512 MiB. Every
 * decoder of the PDF library grows its output through one method, DecodeStream's ensureBuffer:
 * wrapped here, each growth is counted against the budget of the parse in progress (an async
 * context, so parses in one thread never share one), and the one that would pass it throws
 * before it allocates. A bomb therefore stops at the budget, not after it.
 */
export class DecodeBudgetSpent extends Error {
  constructor(readonly budget: number) {
    super(`compressed streams inflate to more than ${budget} bytes`);
  }
}

interface Budget {
  left: number;
  readonly total: number;
  spent: boolean;
}

interface DecodeStreamPrototype {
  buffer: Uint8Array;
  minBufferLength: number;
  ensureBuffer(this: DecodeStreamPrototype, requested: number): Uint8Array;
}

const current = new AsyncLocalStorage<Budget>();

// The CommonJS build is the one `import 'pdf-lib'` loads in Node (its package "main"): the same module instance.
const { default: DecodeStream } = createRequire(import.meta.url)('pdf-lib/cjs/core/streams/DecodeStream.js') as {
  default: { prototype: DecodeStreamPrototype };
};
const ensureBuffer = DecodeStream.prototype.ensureBuffer;
DecodeStream.prototype.ensureBuffer = function (this: DecodeStreamPrototype, requested: number): Uint8Array {
  const budget = current.getStore();
  if (budget && requested > this.buffer.byteLength) {
    // The size the library will allocate: its minimum doubled until it holds `requested`.
    let size = this.minBufferLength;
    while (size < requested) size *= 2;
    if (size > budget.left) {
      budget.spent = true;
      throw new DecodeBudgetSpent(budget.total);
    }
    budget.left -= size;
  }
  return ensureBuffer.call(this, requested);
};

/**
 * Runs a parse whose stream decoding may allocate at most `bytes` in all. The parser catches what
 * an object throws and reports the object as invalid instead, so a spent budget is told by the
 * budget itself: the parse then fails with DecodeBudgetSpent whatever error it gave.
 */
export async function withDecodeBudget<T>(bytes: number, parse: () => Promise<T>): Promise<T> {
  const budget: Budget = { left: bytes, total: bytes, spent: false };
  try {
    return await current.run(budget, parse);
  } catch (err) {
    throw budget.spent ? new DecodeBudgetSpent(bytes) : err;
  }
}
