/**
 * A value as the API spells it: object keys in snake_case (`sellerOfficeId` → `seller_office_id`),
 * times as ISO 8601, so `--json` output reads like the API's answers (D-134).
 */
export function snakeJson(value: unknown): string {
  return JSON.stringify(snakeKeys(value));
}

function snakeKeys(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (!value || typeof value !== 'object' || value instanceof Buffer) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeKeys(v)]));
}
