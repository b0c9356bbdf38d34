/** In-process HTTP counters, rendered in Prometheus text format with the queue gauges. */
export class HttpMetrics {
  private readonly requests = new Map<string, { count: number; seconds: number }>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `method="${method}",route="${route}",status="${status}"`;
    const entry = this.requests.get(key) ?? { count: 0, seconds: 0 };
    entry.count += 1;
    entry.seconds += seconds;
    this.requests.set(key, entry);
  }

  render(): string[] {
    const lines = [
      '# HELP fulfil_http_requests_total HTTP requests answered, by route and status.',
      '# TYPE fulfil_http_requests_total counter',
    ];
    for (const [labels, e] of this.requests) lines.push(`fulfil_http_requests_total{${labels}} ${e.count}`);
    lines.push(
      '# HELP fulfil_http_request_duration_seconds_sum Time spent answering, by route and status.',
      '# TYPE fulfil_http_request_duration_seconds_sum counter',
    );
    for (const [labels, e] of this.requests) lines.push(`fulfil_http_request_duration_seconds_sum{${labels}} ${e.seconds.toFixed(6)}`);
    return lines;
  }
}
