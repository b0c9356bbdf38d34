import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// No module reaches itself through its imports, counting what import-x/no-cycle skips:
// `import type`, `export … from` and dynamic import(). A cycle makes start-up order matter and
// hides a layering mistake even when only types close it.

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIRS = ['src', 'workers', 'machines', 'packages/contract/src', 'packages/client/src'];
const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  customConditions: ['fulfil-source'],
};

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(ROOT, dir, f));
}

/** Each file's imports of files of this repository, whatever their kind. */
function importGraph(
  files: readonly string[],
  text: (file: string) => string,
  host: ts.ModuleResolutionHost = ts.sys,
): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imported = ts.preProcessFile(text(file), true, true).importedFiles.map((f) => f.fileName);
    const targets = imported
      .map((spec) => ts.resolveModuleName(spec, file, OPTIONS, host).resolvedModule?.resolvedFileName)
      .filter((t): t is string => t !== undefined && t.startsWith(ROOT) && !t.includes('/node_modules/'));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one importing itself (Tarjan). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(path.relative(ROOT, w));
      if (w === v) break;
    }
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import cycles', () => {
  it('none among the modules of src, workers, machines and the packages, type-only imports included', () => {
    const files = DIRS.flatMap(sources);
    expect(files.length).toBeGreaterThan(200);
    const graph = importGraph(files, (f) => readFileSync(f, 'utf8'));
    expect([...graph.values()].flat().length).toBeGreaterThan(files.length);
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle closed by a type-only import, a re-export or a dynamic import', () => {
    const at = (name: string) => path.join(ROOT, 'src', `${name}.ts`);
    const text: Record<string, string> = {
      [at('a')]: "import type { B } from './b.ts';",
      [at('b')]: "export { c } from './c.ts';",
      [at('c')]: "export const c = () => import('./a.ts');",
      [at('d')]: "import { c } from './c.ts';",
    };
    const host = { fileExists: (f: string) => f in text, readFile: (f: string) => text[f] };
    const graph = importGraph(Object.keys(text), (f) => text[f]!, host);
    expect(cycles(graph)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
  });
});
