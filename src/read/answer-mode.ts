/**
 * How every answer of an object says its mode (D-207): the mode of the object's order, `livemode`
 * beside the object's own keys, false for a test order. Reads and commands answer through this
 * one function, so a shipment, a file list or an issue answers as its order does. Objects nested
 * in another answer (an order's shipments, an event's shipment) do not repeat it.
 */
export function withMode<T extends object>(answer: T, order: { livemode: boolean }): T & { livemode: boolean } {
  return { ...answer, livemode: order.livemode };
}
