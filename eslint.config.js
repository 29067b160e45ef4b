// Lint rules: type-checked TypeScript, no floating promises, no import cycles, exhaustive
// switches, time only from the injected Clock (common/clock.ts is the one place allowed to touch
// timers), and folder doors with the layer order of docs/architecture.md#layers.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import doors, { LAYERS } from './scripts/eslint-doors.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'bin/**',
      'eslint.config.js',
      'src/web/dist/**',
      'test/fixtures/**',
      'scripts/**',
      'docker/**',
      'examples/**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver': { node: { extensions: ['.ts', '.js'] } } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: [
                'test',
                'it',
                'describe',
                'suite',
                'before',
                'after',
                'beforeEach',
                'afterEach',
              ],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'import-x/no-cycle': ['error', { maxDepth: 10 }],
      // A switch over a union names every member (a `never` check in the default where one is
      // kept): adding a member then fails here, not at run time.
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read time from the injected Clock (common/clock.ts).',
        },
        {
          selector: 'CallExpression[callee.name=/^(setTimeout|setInterval)$/]',
          message: 'Use the injected Clock (common/clock.ts) for timers.',
        },
      ],
    },
  },
  {
    // Test-only modules (a folder's `testing.ts` door, `test-*.ts` helpers) are left out of
    // dist/ by tsconfig.build.json: shipped code must not import them.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/**/*.contract.ts', 'src/**/testing.ts', 'src/**/test-*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)(testing|test-[^/]*)\\.js$',
              message: 'Test-only module: it is not built into dist/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    plugins: { yacron: doors },
    rules: {
      'yacron/doors': [
        'error',
        {
          srcRoot: `${import.meta.dirname}/src`,
          layers: LAYERS,
          // The dashboard and the cron engine it uses are bundled for the browser: they take
          // the node-free common modules one by one (common/index.ts also re-exports modules
          // that need node:fs and pino; scripts/build-web.mjs fails on them).
          deepAllowed: { web: ['common'], schedule: ['common'] },
        },
      ],
    },
  },
  {
    files: ['src/common/clock.ts', 'test/**', 'bench/**', '**/*.test.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.test.ts', 'test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
);
