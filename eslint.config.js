// `npm run lint` (with prettier --check and lint:deploy); .ci/run runs it before the tests.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The layers, lowest first (docs/ARCHITECTURE.md, Layers): a file may import its own layer and the
 * ones below, never one above, types included. Tests, benches, scripts and examples may import anything.
 */
const LAYERS = [
  { name: 'the contract package', files: ['packages/contract/**'] },
  { name: 'the producer package', files: ['packages/client/**'] },
  { name: 'the machines', files: ['machines/**'] },
  // The process's own plumbing: configuration, logger, errors, private files.
  { name: 'the base modules', files: ['src/!(service|index).ts'] },
  { name: 'the stores', files: ['src/@(db|redis|files|carriers)/**'] },
  { name: 'the domain', files: ['src/@(domain|events|read|inventory|webhooks|auth|commands|queues|telemetry|timers|sandbox)/**'] },
  { name: 'the workers, HTTP and operator pages', files: ['workers/**', 'src/@(http|ops)/**'] },
  { name: 'the composition root', files: ['src/service/**', 'src/@(service|index).ts'] },
  { name: 'the CLI', files: ['src/cli/**'] },
];
const layerZones = LAYERS.slice(0, -1).map((layer, i) => ({
  target: layer.files,
  from: LAYERS.slice(i + 1).flatMap((above) => above.files),
  message: `Layers: ${layer.name} must not import a layer above it (eslint.config.js LAYERS, docs/ARCHITECTURE.md).`,
}));

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'coverage/', '.data/', 'test/generated/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      // Without these, import-x only follows .js files and the cycle check sees no TypeScript import.
      'import-x/extensions': ['.ts', '.mjs', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      // A cycle makes start-up order matter and hides layering mistakes (docs/DECISIONS.md).
      // It skips `import type`; test/unit/import-cycles.test.ts finds type-only cycles too.
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      'import-x/no-self-import': 'error',
      'import-x/no-duplicates': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Input validation rejects control characters on purpose (domain/validation.ts).
      'no-control-regex': 'off',
    },
  },
  {
    // Tests, examples and the chaos harness read JSON answers whose shape the assertion itself states.
    files: ['test/**', 'examples/**', 'chaos/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
