/**
 * Workflow code must stay deterministic and sandbox-safe: it may import only the workflow API,
 * pure libraries, and other workflow or shared modules (which follow the same rule), never
 * activities, Node built-ins or I/O libraries (type-only imports are erased and allowed).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..');
const ALLOWED_PACKAGES = ['@temporalio/workflow', '@temporalio/common', 'zod'];
const FORBIDDEN_CALLS = [/\bMath\.random\(/, /\bnew Date\(\)/, /\bDate\.now\(/, /\bsetTimeout\(/, /\bsetInterval\(/, /\bprocess\.env\b/, /\brequire\(/, /\bawait\s+import\(|\bimport\([^)]*\)\s*\.then/];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Runtime (non type-only) import specifiers of a file. */
function runtimeImports(source: string): string[] {
  const specs: string[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?([\s\S]*?)\s+from\s+'([^']+)';?/gm;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    if (m[2]) continue; // import type / export type
    const clause = m[3];
    // `import { type A, type B }` is type-only too.
    const names = clause.replace(/[{}]/g, '').split(',').map((s) => s.trim()).filter(Boolean);
    if (clause.startsWith('{') && names.every((n) => n.startsWith('type '))) continue;
    specs.push(m[4]);
  }
  return specs;
}

function sandboxFiles(): string[] {
  const seen = new Set<string>();
  const queue = tsFiles(join(ROOT, 'src', 'workflows'));
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const base = resolve(dirname(file), spec);
      const target = [`${base}.ts`, join(base, 'index.ts')].find((p) => {
        try {
          return statSync(p).isFile();
        } catch {
          return false;
        }
      });
      if (target) queue.push(target);
    }
  }
  return [...seen];
}

test('workflow code and what it imports use only sandbox-safe modules', () => {
  const problems: string[] = [];
  const files = sandboxFiles();
  for (const file of files) {
    const rel = relative(ROOT, file);
    if (!rel.startsWith('src/workflows/') && !rel.startsWith('src/shared/')) {
      problems.push(`${rel}: reached from workflow code, but only src/workflows and src/shared may be`);
    }
    const source = readFileSync(file, 'utf8');
    for (const spec of runtimeImports(source)) {
      if (!spec.startsWith('.') && !ALLOWED_PACKAGES.includes(spec)) problems.push(`${rel}: imports "${spec}" at run time`);
    }
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const re of FORBIDDEN_CALLS) if (re.test(code)) problems.push(`${rel}: uses ${re.source}`);
  }
  expect(files.length).toBeGreaterThan(5);
  expect(problems).toEqual([]);
});

test('the check catches a forbidden import', () => {
  expect(runtimeImports("import { readFileSync } from 'node:fs';")).toEqual(['node:fs']);
  expect(runtimeImports("import type { Activities } from '../activities';")).toEqual([]);
  expect(runtimeImports("import { type A, type B } from './x';")).toEqual([]);
  expect(runtimeImports("import { x, type B } from './x';")).toEqual(['./x']);
});
