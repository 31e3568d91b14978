// Lint rules: typescript-eslint's type-aware recommendations, so floating promises (the source
// of unhandled rejections) and unsafe `any` flows are caught before they reach a host process.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './scripts/lint/importLayers.js';

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'test-results/**', 'node_modules/**', 'docs/**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    // Imports point one way between the layers of src/ (docs/architecture.md), each through its index.ts.
    files: ['src/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/import-layers': 'error' },
  },
  {
    // Tests deliberately throw odd values and write async doubles that never await.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/only-throw-error': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
