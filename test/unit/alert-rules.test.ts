import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const DIR = path.resolve(import.meta.dirname, '../../prometheus');
const RULES = path.join(DIR, 'fulfil-alerts.yml');
const TESTS = path.join(DIR, 'fulfil-alerts.test.yml');
const OPERATIONS = path.resolve(import.meta.dirname, '../../docs/OPERATIONS.md');

interface Rules {
  groups: Array<{ rules: Array<{ alert: string; annotations: { runbook: string } }> }>;
}
interface RuleTests {
  tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}

const alerts = (parse(readFileSync(RULES, 'utf8')) as Rules).groups.flatMap((g) => g.rules);

/** The alert rules as Prometheus reads them (promtool, Debian package `prometheus`; .ci/run installs it). */
describe('alert rules', () => {
  it('pass promtool check rules', async () => {
    const { stdout } = await run('promtool', ['check', 'rules', RULES]);
    expect(stdout).toContain(`SUCCESS: ${alerts.length} rules found`);
  });

  it('pass their promtool unit tests', async () => {
    const { stdout } = await run('promtool', ['test', 'rules', TESTS], { cwd: DIR });
    expect(stdout).toContain('SUCCESS');
  });

  it('each fires in a unit test and stays quiet in one, and has its runbook paragraph', () => {
    const cases = (parse(readFileSync(TESTS, 'utf8')) as RuleTests).tests.flatMap((t) => t.alert_rule_test);
    const runbook = readFileSync(OPERATIONS, 'utf8');
    for (const { alert, annotations } of alerts) {
      expect(
        cases.some((c) => c.alertname === alert && c.exp_alerts.length > 0),
        `${alert} fires in a test`,
      ).toBe(true);
      expect(
        cases.some((c) => c.alertname === alert && c.exp_alerts.length === 0),
        `${alert} quiet in a test`,
      ).toBe(true);
      expect(annotations.runbook).toBe(`docs/OPERATIONS.md#alert-${alert.toLowerCase()}`);
      expect(runbook, `runbook of ${alert}`).toContain(`<a id="alert-${alert.toLowerCase()}"></a>`);
    }
  });
});
