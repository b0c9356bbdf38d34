// `npm run lint` (with prettier --check and lint:deploy); .ci/run runs it before the tests.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

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
      'import-x/no-cycle': 'error',
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
