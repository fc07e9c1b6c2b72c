/**
 * Lets a plain `node` child process (a worker a test SIGKILLs) run Cohort's TypeScript sources
 * directly, so the test never depends on a stale dist/. Transpile only: jest already type-checks.
 */
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = function compileTs(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      inlineSourceMap: true,
    },
  });
  module._compile(outputText, filename);
};
