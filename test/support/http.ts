/** HTTP helpers for tests: requests signed exactly as a real client signs them. */
export { signedFetch, type SigningCredential } from '../../src/auth/signed-fetch.ts';
