import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Every `ts` code block of the docs (README.md, docs/*.md, packages/*/README.md) compiles under
// the project's compiler options (strict): an example a reader copies must not need fixing first.
// `./fulfil.js`, the types `openapi-typescript` writes from /openapi.json, is this repository's
// test/generated/openapi-types.ts (npm run openapi keeps it the served document's).

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRATCH = path.join(ROOT, `.scratch-docs-examples-${process.pid}`);

function markdownFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const packages = readdirSync(path.join(ROOT, 'packages')).map((p) => `packages/${p}/README.md`);
  return ['README.md', ...docs, ...packages].filter((f) => {
    try {
      readFileSync(path.join(ROOT, f));
      return true;
    } catch {
      return false;
    }
  });
}

function tsBlocks(file: string): Array<{ line: number; code: string }> {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: Array<{ line: number; code: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    blocks.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

describe('the docs’ TypeScript examples', () => {
  it('compile under strict, each as its own module', () => {
    const examples = markdownFiles().flatMap((file) => tsBlocks(file).map((b) => ({ ...b, file })));
    expect(examples.length).toBeGreaterThanOrEqual(2);
    mkdirSync(SCRATCH, { recursive: true });
    try {
      writeFileSync(path.join(SCRATCH, 'fulfil.ts'), "export type { paths } from '../test/generated/openapi-types.ts';\n");
      const names = examples.map((e) => {
        const name = path.join(SCRATCH, `${e.file.replace(/[/.]/g, '_')}_${e.line}.ts`);
        writeFileSync(name, e.code);
        return name;
      });
      const config = ts.getParsedCommandLineOfConfigFile(
        path.join(ROOT, 'tsconfig.json'),
        {},
        {
          ...ts.sys,
          onUnRecoverableConfigFileDiagnostic: (d) => {
            throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
          },
        },
      )!;
      const program = ts.createProgram(names, { ...config.options, noEmit: true });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file?.fileName.startsWith(SCRATCH))
        .map((d) => {
          const example = examples[names.indexOf(d.file!.fileName)];
          const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
          const where = example ? `${example.file}:${example.line + 1 + line}` : d.file!.fileName;
          return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
        });
      expect(problems).toEqual([]);
    } finally {
      rmSync(SCRATCH, { recursive: true, force: true });
    }
  }, 120_000);
});
