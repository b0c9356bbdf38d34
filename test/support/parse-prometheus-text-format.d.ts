// The parser ships no types; tests use only its one function.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): Array<{ name: string; help: string; type: string; metrics: unknown[] }>;
}
