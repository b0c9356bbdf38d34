// `node --import tsx --import ./test/support/client-from-source.mjs script.mjs`: the script's
// `@fulfil/client` resolves to the package's TypeScript sources, so an example runs against the
// code in this checkout without a build of packages/client (which another test file may be
// rebuilding at that moment).
import { register } from 'node:module';

const source = new URL('../../packages/client/src/index.ts', import.meta.url).href;
const hooks = `export async function resolve(specifier, context, next) {
  return next(specifier === '@fulfil/client' ? ${JSON.stringify(source)} : specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
