/**
 * `npm run test:cluster`: the tests against a real Temporal cluster on PostgreSQL
 * (scripts/cluster/cluster.mjs), kept out of `npm test` because they need the Temporal server
 * built from source (scripts/cluster/build-temporal.sh, cached after the first build).
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
};
