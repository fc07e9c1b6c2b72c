/**
 * A Cohort worker in its own process (`cohort worker`, run from the sources), so a test can
 * SIGKILL it the way a crash or an OOM kill would end a real one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait';

export interface WorkerProcess {
  child: ChildProcess;
  /** stdout + stderr so far, for failure messages. */
  output(): string;
  /** SIGKILL, no goodbye: in-flight calls are abandoned mid-request. */
  kill(): Promise<void>;
  /** SIGTERM and wait: the graceful stop. */
  stop(): Promise<void>;
}

const CLI = join(__dirname, 'cohort-cli.js');

export async function startWorkerProcess(opts: {
  address: string;
  taskQueue: string;
  modelBaseUrl: string;
  extraArgs?: string[];
}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [CLI, 'worker', '--task-queue', opts.taskQueue, ...(opts.extraArgs ?? [])], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: opts.address,
      TEMPORAL_NAMESPACE: 'default',
      ANTHROPIC_BASE_URL: opts.modelBaseUrl,
      ANTHROPIC_API_KEY: 'test-key',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    await exited;
  };
  try {
    const state = await waitFor(
      'the worker process to start polling',
      () => (child.exitCode !== null ? 'exited' : out.includes('Worker polling') ? 'ready' : undefined),
      60_000,
    );
    if (state === 'exited') throw new Error(`worker exited with code ${child.exitCode}`);
  } catch (err) {
    await signal('SIGKILL');
    throw new Error(`${(err as Error).message}\nworker output:\n${out}`);
  }
  return { child, output: () => out, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}
