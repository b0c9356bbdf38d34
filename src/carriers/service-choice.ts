/** A rate as an aggregator quotes it, reduced to what the choice needs. */
export interface QuotedRate {
  id: string;
  carrier: string;
  service: string;
  rate: string;
  /** When the carrier expects to deliver, if it says; else from its days in transit. */
  deliveryAt: Date | null;
}

/**
 * The service a label is bought with (D-113): the seller's, when named; else the cheapest whose
 * delivery comes before the order's deliver_by; else (none does, or there is no deadline and no
 * estimate) the fastest. The reason goes into the answer.
 */
export function chooseRate(
  rates: readonly QuotedRate[],
  serviceType: string | null,
  deliverBy: Date | null,
): { rate: QuotedRate; reason: string } | undefined {
  if (rates.length === 0) return undefined;
  if (serviceType) {
    const named = rates.find((r) => r.service.toLowerCase() === serviceType.toLowerCase());
    return named && { rate: named, reason: `the service the seller chose (${named.service})` };
  }
  const price = (r: QuotedRate) => Number.parseFloat(r.rate);
  const time = (r: QuotedRate) => r.deliveryAt?.getTime() ?? Number.POSITIVE_INFINITY;
  if (deliverBy) {
    const onTime = rates.filter((r) => r.deliveryAt !== null && r.deliveryAt.getTime() <= deliverBy.getTime());
    if (onTime.length > 0) {
      const cheapest = [...onTime].sort((a, b) => price(a) - price(b) || time(a) - time(b))[0]!;
      return { rate: cheapest, reason: `the cheapest service expected before deliver_by (${deliverBy.toISOString()})` };
    }
  }
  const fastest = [...rates].sort((a, b) => time(a) - time(b) || price(a) - price(b))[0]!;
  return {
    rate: fastest,
    reason: deliverBy
      ? `no service is expected before deliver_by (${deliverBy.toISOString()}): the fastest`
      : 'the order has no deliver_by: the fastest',
  };
}
