/**
 * `npm run bench -- <name> [options]`: runs one benchmark. Benchmarks hold the speed targets;
 * tests never time anything.
 */
const BENCHES: Record<string, () => Promise<{ run(args: string[]): Promise<number> }>> = {
  inventory: () => import('./inventory.ts'),
  commands: () => import('./commands.ts'),
  scale: () => import('./scale.ts'),
  webhooks: () => import('./webhooks.ts'),
  feed: () => import('./feed.ts'),
  'order-search': () => import('./order-search.ts'),
  'events-stream': () => import('./events-stream.ts'),
  timers: () => import('./timers.ts'),
  clocks: () => import('./clocks.ts'),
  etickets: () => import('./etickets.ts'),
  driver: () => import('./driver.ts'),
};

const [name, ...args] = process.argv.slice(2);
const load = name === undefined ? undefined : BENCHES[name];
if (!load) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(BENCHES).join('|')}> [options]\n`);
  process.exitCode = 2;
} else {
  process.exitCode = await (await load()).run(args);
}
