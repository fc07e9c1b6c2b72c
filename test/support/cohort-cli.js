#!/usr/bin/env node
// `cohort` from the TypeScript sources, for tests that need a real separate process (e.g. a
// worker to SIGKILL): node test/support/cohort-cli.js worker --task-queue Q
require('./ts-register');
require('../../src/cli/index.ts')
  .main(process.argv)
  .catch((err) => {
    process.stderr.write(`cohort: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  });
