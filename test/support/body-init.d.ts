// The fetch client @hey-api/openapi-ts generates (test/generated/hey-api/) names the DOM's global
// BodyInit; Node's own types keep it in undici-types, the types of Node's fetch.
declare global {
  type BodyInit = import('undici-types').BodyInit;
}
export {};
