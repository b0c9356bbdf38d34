import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { CLIENT_PROGRAMS, type FlowInput } from '../support/client-programs.ts';
import { sdkOf } from '../support/generated-sdk.ts';
import { typesOf } from '../support/generated-types.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';

// The generated clients docs/API.md §Generating a client describes, with exactly the versions
// and options it names: the generators of package.json (pinned) run on the served document, the
// two integrator programs beside their output compile under `strict` with NodeNext, and run.

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRATCH = path.join(ROOT, `.scratch-generated-clients-${process.pid}`);

/** The versions docs/API.md names as tested; package.json pins them exactly. */
const TESTED = {
  typescript: '6.0.3',
  'openapi-typescript': '7.13.0',
  'openapi-fetch': '0.17.0',
  '@hey-api/openapi-ts': '0.94.0',
} as const;

/** The compiler options docs/API.md names (beside `strict`). */
const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
};

const [DELIVER, REJECT, CANCEL, DELIVER2, REJECT2, CANCEL2] = [990, 991, 992, 993, 994, 995];

describe('generated clients under strict, as the docs say', () => {
  let t: TestService;
  let input: Omit<FlowInput, 'orders'>;
  beforeAll(async () => {
    t = await startTestService();
    const fixture = baseFixture([DELIVER, REJECT, CANCEL, DELIVER2, REJECT2, CANCEL2]);
    fixture.ticket_groups = [{ office_id: 10, remote_id: 1, id: 900001, event_id: 5000, quantity: 2 }];
    await t.seed(fixture);
    input = { baseUrl: t.url, token: SELLER.token, secret: SELLER.secret, pdf: b64(await makePdf(2, 'generated')), officeId: 10 };
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(SCRATCH, { recursive: true, force: true });
  });

  it('uses exactly the versions docs/API.md names, pinned in package.json', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    const api = readFileSync(path.join(ROOT, 'docs/API.md'), 'utf8');
    for (const [name, version] of Object.entries(TESTED)) {
      expect(pkg.devDependencies[name], name).toBe(version);
      const installed = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
      expect(installed.version, name).toBe(version);
      expect(api, name).toContain(`${name} ${version}`);
    }
    expect(api).toContain('"moduleResolution": "NodeNext"');
  });

  it('generates from the served document, compiles both programs under strict with NodeNext, and runs them', async () => {
    const doc = await (await fetch(`${t.url}/openapi.json`)).json();
    mkdirSync(SCRATCH, { recursive: true });
    writeFileSync(path.join(SCRATCH, 'fulfil.ts'), await typesOf(doc));
    for (const [rel, text] of await sdkOf(doc)) {
      mkdirSync(path.dirname(path.join(SCRATCH, 'hey', rel)), { recursive: true });
      writeFileSync(path.join(SCRATCH, 'hey', rel), text);
    }
    // A module folder of its own, as an integrator's ESM project: NodeNext reads it as ESM.
    writeFileSync(path.join(SCRATCH, 'package.json'), '{"type":"module"}\n');
    for (const [name, text] of Object.entries(CLIENT_PROGRAMS)) writeFileSync(path.join(SCRATCH, name), text);

    const roots = Object.keys(CLIENT_PROGRAMS).map((n) => path.join(SCRATCH, n));
    const program = ts.createProgram(roots, OPTIONS);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file
        ? `${path.relative(SCRATCH, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);

    const expected = { completed: 'delivered', etickets: 1, rejected: 'rejected', canceled: 'cancel_proposed', index: 1, detailed: 1 };
    const fetchFlow = (await import(path.join(SCRATCH, 'openapi-fetch-flow.ts'))) as { run(i: FlowInput): Promise<unknown> };
    expect(await fetchFlow.run({ ...input, orders: { deliver: DELIVER, reject: REJECT, cancel: CANCEL } })).toEqual(expected);
    const heyFlow = (await import(path.join(SCRATCH, 'hey-api-flow.ts'))) as { run(i: FlowInput): Promise<unknown> };
    expect(await heyFlow.run({ ...input, orders: { deliver: DELIVER2, reject: REJECT2, cancel: CANCEL2 } })).toEqual(expected);
  }, 120_000);
});
