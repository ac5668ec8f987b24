// Type-aware linting (typescript-eslint's recommended type-checked rules) for every TypeScript file.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      'dist/',
      'coverage/',
      '.local/',
      '*.config.js',
      'eslint.config.mjs',
      'stryker.config.mjs',
      'test/mutation/*.js',
      // CommonJS that jest itself loads, as it loads its config.
      'test/support/sequencer.js',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // jest's asymmetric matchers (expect.any, expect.stringContaining) are typed `any`.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    // The local runtime and tests talk to people on the console.
    files: ['local/**', 'test/**', 'infra/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
);
