#!/usr/bin/env node
// The `cohort` command. The TypeScript sources are compiled to dist/ by `npm install` (prepare).
const path = require('node:path');
const fs = require('node:fs');

const entry = path.join(__dirname, '..', 'dist', 'cli', 'index.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('cohort: dist/ is missing; run `npm install` (or `npm run build`) in the Cohort folder first.\n');
  process.exit(1);
}
require(entry)
  .main(process.argv)
  .catch((err) => {
    process.stderr.write(`cohort: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  });
