// ESLint (flat config): the recommended JavaScript and TypeScript rules that fit the code as written; Prettier formats.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', 'bench/results/**', 'bench/baselines/**', 'test/fixtures/codex/**', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // The bundled threads' code: the bundler drops the parts of zod a namespace import leaves unused (half of it: JSON
    // Schema import, codecs, string formats); zod's own `z` object holds them all, so every thread would compile them.
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > :matches(ImportSpecifier, ImportDefaultSpecifier)",
          message: "import * as z from 'zod'",
        },
      ],
    },
  },
);
