import { loadSimScript, startSim, type SimLogEntry, type SimOptions } from '../sim';

export interface SimCommandOptions {
  port?: string;
  script?: string;
  latencyMs?: string;
  rpm?: string;
  tpm?: string;
  failRate?: string;
}

/** Turns the command's string flags into SimOptions; errors name the flag and the bad value. */
export function simOptionsFromFlags(opts: SimCommandOptions): SimOptions {
  const num = (flag: string, raw: string | undefined, ok: (n: number) => boolean, want: string): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (raw.trim() === '' || !ok(n)) throw new Error(`${flag}: expected ${want}, got "${raw}"`);
    return n;
  };
  return {
    port: num('--port', opts.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, 'an integer 0-65535'),
    latencyMs: num('--latency-ms', opts.latencyMs, (n) => Number.isFinite(n) && n >= 0, 'a number of milliseconds >= 0'),
    rpm: num('--rpm', opts.rpm, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1'),
    tpm: num('--tpm', opts.tpm, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1'),
    failRate: num('--fail-rate', opts.failRate, (n) => n >= 0 && n <= 1, 'a number between 0 and 1'),
    script: opts.script !== undefined ? loadSimScript(opts.script) : undefined,
  };
}

function describeEntry(e: SimLogEntry): string {
  const system = e.system.split('\n')[0].slice(0, 60);
  return `${e.status} ${e.model || '-'} turn ${e.turn}${e.stream ? ' (stream)' : ''} ${e.end - e.start} ms  ${system}`;
}

/**
 * `cohort sim`: runs the simulated model in the foreground until SIGINT/SIGTERM, printing one
 * line per model call.
 */
export async function runSimCommand(opts: SimCommandOptions): Promise<void> {
  const options = simOptionsFromFlags(opts);
  const sim = await startSim({ ...options, onRequest: (e) => console.log(describeEntry(e)) });
  const mode = opts.script ? `script ${opts.script} (${options.script?.rules.length ?? 0} rules)` : 'default policy';
  const faults = [
    options.latencyMs !== undefined ? `latency ${options.latencyMs} ms` : '',
    options.rpm !== undefined ? `${options.rpm} requests/min` : '',
    options.tpm !== undefined ? `${options.tpm} tokens/min` : '',
    options.failRate !== undefined ? `fail rate ${options.failRate}` : '',
  ].filter((s) => s !== '');
  console.log(`Cohort sim listening on ${sim.url}`);
  console.log(`  answering with: ${mode}${faults.length ? `; ${faults.join(', ')}` : ''}`);
  console.log(`  point Cohort at it: ANTHROPIC_BASE_URL=${sim.url} ANTHROPIC_API_KEY=sim`);
  console.log(`  request log: ${sim.url}/_sim/stats`);

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const stats = sim.stats();
  await sim.close();
  console.log(`Cohort sim stopped after ${stats.requests} requests.`);
}
