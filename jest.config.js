/**
 * Jest runs the TypeScript sources through ts-jest with the project's tsconfig, so type errors
 * in tests fail the run. One dev server (test/setup/global-setup.ts) serves the whole run;
 * run with --runInBand (2 cores; Temporal workers are heavy).
 *
 * @type {import('jest').Config}
 */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60_000,
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // Built output and bundles must never be picked up as tests or modules.
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};
