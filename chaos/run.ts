import { cpus, totalmem } from 'node:os';
import { FULL, runChaos, SHORT, violations, type ChaosOptions } from './suite.ts';

// npm run chaos [-- --short] : the full suite on private servers, its figures printed; exits 1
// when a promise of docs/RELIABILITY.md did not hold.
const short = process.argv.includes('--short');
const opts: ChaosOptions = { ...(short ? SHORT : FULL), log: (l) => console.log(l) };
console.log(
  `chaos ${short ? 'short' : 'full'} run, ${new Date().toISOString()}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}`,
);
const figures = await runChaos(opts);
const t = figures.totals;
console.log(
  `flows ${t.flows}, calls ${t.calls}: 200 ${t.s200}, 202 ${t.s202}, 4xx ${t.s4xx}, 5xx ${t.s5xx} (all 503: ${t.s5xx === t.s503})`,
);
console.log(`lost ${t.lost}, duplicated ${t.duplicated}, stuck ${t.stuck}, crashed processes ${figures.crashes.length}`);
console.log(`duration ${(figures.durationMs / 1000).toFixed(0)} s`);
const broken = violations(figures);
if (broken.length) {
  console.log(`FAILED:\n  ${broken.join('\n  ')}`);
  process.exitCode = 1;
} else {
  console.log('all promises held');
}
