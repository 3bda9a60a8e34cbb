// Lint is part of `npm test`: floating promises and non-determinism in workflows/ are build errors.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', 'dist/**', '.data/**', 'bin/**', 'scripts/**', '**/*.py'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // contracts/ is shared with workflows: it must stay free of Node and I/O.
    files: ['contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', ...nodeBuiltins],
              message: 'contracts/ must not import Node built-ins (it is workflow-safe).',
            },
          ],
        },
      ],
    },
  },
  {
    // What workflows import at run time stays zod-free: each workflow run evaluates it.
    files: ['contracts/names/**/*.ts', 'contracts/limits.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['zod', '../*', '!../names', '!../limits'],
              message: 'contracts/names and contracts/limits are zod-free: workflows import them at run time.',
            },
            {
              group: ['node:*', ...nodeBuiltins],
              message: 'contracts/ must not import Node built-ins (it is workflow-safe).',
            },
          ],
        },
      ],
    },
  },
  {
    // The retry rule is evaluated by workflows at run time too: zod-free, it imports only names and limits.
    files: ['contracts/retry-rule.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['zod', './*', '../*', '!./names', '!./limits'],
              message: 'contracts/retry-rule is zod-free: workflows import it at run time.',
            },
            {
              group: ['node:*', ...nodeBuiltins],
              message: 'contracts/ must not import Node built-ins (it is workflow-safe).',
            },
          ],
        },
      ],
    },
  },
  {
    // Workflows run in Temporal's deterministic sandbox.
    files: ['workflows/**/*.ts'],
    rules: {
      // Each workflow run evaluates what it imports: schemas (zod) only as types.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/contracts/*',
                '!**/contracts/names',
                '!**/contracts/limits',
                '!**/contracts/retry-rule',
                'zod',
              ],
              allowTypeImports: true,
              message:
                'Workflows import values only from contracts/names, contracts/limits and contracts/retry-rule (zod-free); everything else as types.',
            },
            {
              // contracts/index re-exports everything (the pipeline's expression evaluation included).
              regex: '(^|/)contracts$',
              allowTypeImports: true,
              message:
                'Workflows import values only from contracts/names and contracts/limits (zod-free); everything else as types.',
            },
          ],
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', ...nodeBuiltins], message: 'Workflows must be deterministic: no Node built-ins.' },
            {
              group: [
                'undici',
                'better-sqlite3',
                'pino',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/activity',
              ],
              message: 'Workflows import only @temporalio/workflow, contracts/ and types from activities/.',
            },
            {
              group: [
                '**/platform',
                '**/platform/*',
                '**/platform-api',
                '**/platform-api/*',
                '**/worker',
                '**/worker/*',
                '**/client',
                '**/client/*',
                '**/results',
                '**/results/*',
              ],
              message: 'Workflows import only @temporalio/workflow, contracts/ and types from activities/.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() from @temporalio/workflow.' },
      ],
    },
  },
  // Layout is Prettier's (`npm run format`; checked by `npm run lint`): no stylistic lint rules.
  prettier,
  {
    // Tests read arbitrary JSON answers; typing each one would only restate the assertions.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
