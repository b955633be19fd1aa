import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

/** Workflow code is replayed in a sandbox: no Node built-ins, no I/O. The core is bundled into it. */
const workflowSafeFiles = [
  'src/core/**/*.ts',
  'src/workflows/**/*.ts',
  'src/policy/**/*.ts',
  'src/compaction/**/*.ts',
  'src/tools/specs/**/*.ts',
  // The workflow half of tools given to a worker, which the workflow reads.
  'src/tools/user/tool-description.ts',
  'src/tools/user/failure-types.ts',
  // The job store's plain types and canonical JSON, which workflow code may import.
  'src/store/references.ts',
  'src/store/canonical-json.ts',
  'test/**/workflows.ts',
  'test/**/workflows/**/*.ts',
];
const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`]);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.temporal/**',
      '.dar/**',
      'coverage/**',
      '.bench-build/**',
      '.cache/**',
      // Its own project, compiled against the packed package by its e2e test.
      'examples/custom-tool/**',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: workflowSafeFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message:
              'Workflow-safe code must not use Node built-ins (it is replayed in a sandbox).',
          })),
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // The operator console's pages (`dar ui`): plain browser scripts, no build step.
    files: ['web/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'document',
          'location',
          'history',
          'fetch',
          'EventSource',
          'URLSearchParams',
          'confirm',
          'setInterval',
          'clearInterval',
          'setTimeout',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // CommonJS modules that Temporal loads by path with `require` (a failure converter).
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', exports: 'writable' },
    },
  },
);
