/**
 * Jest runs the TypeScript sources as native ES modules (the project is "type": "module"
 * because the provider library is ESM-only). @swc/jest strips the types; `tsc` checks them.
 * Test files import siblings with a `.js` suffix, as Node's ESM resolution requires; the
 * mapper sends those to the `.ts` source.
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // The real-cluster tests need the Temporal server built from source: `npm run test:cluster`.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/'],
  testTimeout: 60_000,
  // Jest's native-ESM mode never frees a test file's modules (jestjs/jest#14605), so one process
  // running the whole suite grows to the heap limit and then crawls in garbage collection until
  // late files time out. A memory limit makes jest run the files in a worker process that it
  // replaces whenever the heap it keeps after a file passes this size.
  workerIdleMemoryLimit: '1GB',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
