/**
 * Every history recorded in test/replay/ replays against the current workflow code without
 * nondeterminism: sessions started by an older worker can finish on a newer one. The negative
 * test proves the check has teeth: an unversioned change to the session workflow is caught.
 * Re-record with scripts/record-replay.ts (see test/replay/README.md).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type ReplayResult, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { workflowBundle } from '../src/worker';

const DIR = join(__dirname, 'replay');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();

function histories(files: string[]) {
  return files.map((file) => ({ workflowId: workflowIdOf(file), history: JSON.parse(readFileSync(join(DIR, file), 'utf8')) as unknown }));
}

/** `fanout.session.json` → `replay-fanout`; `fanout.researcher-1.json` → `replay-fanout/researcher-1` (see the script). */
function workflowIdOf(file: string): string {
  const [scenario, label] = file.replace(/\.json$/, '').split('.');
  return label === 'session' ? `replay-${scenario}` : `replay-${scenario}/${label}`;
}

async function replay(bundle: WorkflowBundleWithSourceMap, files: string[]): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, histories(files))) results.push(r);
  return results;
}

beforeAll(() => {
  // A replayed workflow task that throws only logs a warning: keep the output readable.
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Another test in this process installed a runtime first.
  }
});

test('the recorded histories cover a session with subagents, tools, retries and a failed child', () => {
  expect(FILES).toEqual(expect.arrayContaining(['solo.session.json', 'fanout.session.json', 'tools-retry.session.json', 'child-error.session.json']));
  expect(FILES.filter((f) => !f.endsWith('.session.json')).length).toBeGreaterThanOrEqual(4);
});

test('every recorded history replays against the current workflow code without nondeterminism', async () => {
  const results = await replay(await workflowBundle(), FILES);
  const failures = results.filter((r) => r.error).map((r) => `${r.workflowId}: ${r.error!.message}`);
  expect(failures).toEqual([]);
  expect(results).toHaveLength(FILES.length);
});

test('an unversioned change to the session workflow is caught as nondeterminism', async () => {
  const altered = await bundleWorkflowCode({
    workflowsPath: require.resolve('./fixtures/replay-altered'),
    logger: new DefaultLogger('WARN'),
  });
  const results = await replay(altered, FILES.filter((f) => f.endsWith('.session.json')));
  expect(results.length).toBeGreaterThan(0);
  for (const r of results) {
    expect(r.error?.name).toBe('DeterminismViolationError');
  }
});
