/** The `cohort` command line. */
import { Command } from 'commander';
import { ServerUnreachableError } from '../client/environment';
import { CliError } from './errors';
import { setupTracing } from '../tracing';
import { runCommand } from './run';
import { cancelCommand, sendCommand } from './follow-ups';
import { resultCommand, startCommand, statusCommand } from './sessions';
import { devCommand, serverCommand, workerCommand } from './servers';
import { doctorCommand } from './doctor';
import { runSimCommand } from './sim';
import { runValidate } from './validate';
import { setupCommand } from './setup';
import { batchCancelCommand, batchCommand, batchStatusCommand } from './batch';
import { lsCommand } from './ls';
import { transcriptCommand } from './transcript';
import { watchCommand } from './watch';

type Action = (...args: any[]) => Promise<number | void>;

/** Runs a command action, turning CliErrors into a message and an exit code. */
function act(fn: Action) {
  return async (...args: unknown[]) => {
    try {
      const code = await fn(...args);
      process.exitCode = typeof code === 'number' ? code : 0;
    } catch (err) {
      if (err instanceof CliError || err instanceof ServerUnreachableError) {
        process.stderr.write(`cohort: ${err.message}\n`);
        process.exitCode = err instanceof CliError ? err.exitCode : 1;
      } else {
        process.stderr.write(`cohort: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exitCode = 1;
      }
    }
  };
}

export function buildProgram(): Command {
  const program = new Command('cohort')
    .description('Durable multi-agent research sessions on Temporal')
    .showHelpAfterError();

  program
    .command('run <team> <task>')
    .description('run a session and follow it live; starts a dev server, a worker and the simulated model when missing')
    .option('--json', 'print the result as one JSON object')
    .option('--id <id>', 'workflow id for the session')
    .option('--task-queue <name>', 'task queue (default: cohort, or COHORT_TASK_QUEUE)')
    .option('--interactive', 'keep the session open: read follow-up questions from stdin, one per line (EOF closes it)')
    .action(act((team: string, task: string, opts) => runCommand(team, task, opts)));

  program
    .command('start <team> <task>')
    .description('start a session and print its workflow id (needs a running worker: cohort worker / cohort dev)')
    .option('--id <id>', 'workflow id for the session')
    .option('--task-queue <name>', 'task queue')
    .option('--interactive', 'keep the session open for follow-ups (`cohort send`) until `cohort cancel` or the idle timeout')
    .action(act((team: string, task: string, opts) => startCommand(team, task, opts)));

  program
    .command('status <id>')
    .description("show a session's agents, turns and usage")
    .option('--json', 'print JSON')
    .action(act((id: string, opts) => statusCommand(id, opts)));

  program
    .command('result <id>')
    .description('wait for a session to end and print its answer')
    .option('--json', 'print the result as one JSON object')
    .action(act((id: string, opts) => resultCommand(id, opts)));

  program
    .command('send <id> <message>')
    .description('ask an interactive session a follow-up question and print the answer')
    .action(act((id: string, message: string) => sendCommand(id, message)));

  program
    .command('cancel <id>')
    .description('cancel a session and its running subagents (their partial usage is kept)')
    .action(act((id: string) => cancelCommand(id)));

  program
    .command('validate <team>')
    .description('check a team YAML file')
    .action(act((file: string) => runValidate(file)));

  program
    .command('dev')
    .description('a local Temporal dev server (unless one answers) and a worker')
    .option('--db <file>', 'keep the dev server state in this SQLite file')
    .option('--task-queue <name>', 'task queue')
    .action(act((opts) => devCommand(opts)));

  program
    .command('server')
    .description('run the Temporal dev server in the foreground')
    .option('--port <n>', 'gRPC port', '7233')
    .option('--ui-port <n>', 'UI port (default: port + 1000)')
    .option('--db <file>', 'keep state in this SQLite file')
    .action(act((opts) => serverCommand(opts)));

  program
    .command('worker')
    .description('run a worker (workflows, tools and model calls)')
    .option('--task-queue <name>', 'task queue')
    .option('--sim', 'use the simulated model when ANTHROPIC_API_KEY is not set')
    .option('--model-concurrency <n>', 'model calls at once in this worker (COHORT_MODEL_CONCURRENCY)')
    .option('--model-rps <n>', 'model calls per second across all workers (COHORT_MODEL_RPS)')
    .option('--model-timeout <seconds>', 'HTTP timeout of one model request (COHORT_MODEL_TIMEOUT)')
    .option('--no-model-pacing', 'send even when the rate-limit headers say the request will be refused (COHORT_MODEL_PACING=off)')
    .option('--metrics <host:port>', 'serve Prometheus metrics at http://<host:port>/metrics (COHORT_METRICS_ADDRESS)')
    .action(act((opts) => workerCommand(opts)));

  program
    .command('setup')
    .description("register Cohort's search attributes on the Temporal namespace (real servers; `cohort dev` does it itself)")
    .action(act(() => setupCommand()));

  program
    .command('sim')
    .description('run the simulated Anthropic-compatible model server')
    .option('--port <n>', 'port (default: a free one)')
    .option('--script <file>', 'JSON rules file')
    .option('--latency-ms <n>', 'added latency per request')
    .option('--rpm <n>', 'requests per minute before 429s')
    .option('--tpm <n>', 'tokens per minute before 429s')
    .option('--fail-rate <x>', 'fraction of requests answered 500/529')
    .action(act((opts) => runSimCommand(opts)));

  const batch = program
    .command('batch')
    .argument('[team]', 'team YAML file')
    .argument('[jobs]', 'jobs file: JSONL {"id"?, "task", "context"?}, CSV (task, id?, context?) or one task per line')
    .description('run many tasks on one team, N at once; resubmitting the same batch (same --id) skips finished jobs')
    .option('--concurrency <n>', 'sessions running at once (default 4)')
    .option('--out <dir>', 'where <job-id>.md and results.jsonl go (default <batch id>-results)')
    .option('--id <id>', 'batch id (default <team>-<jobs file name>)')
    .option('--retry-failed', 'rerun the jobs that failed in an earlier submission of this batch')
    .option('--task-queue <name>', 'task queue')
    .option('--jobs-per-run <n>', 'sessions started per workflow run before continue-as-new (default 500)')
    .action(
      act((team: string | undefined, jobs: string | undefined, opts) => {
        if (!team || !jobs) throw new CliError('usage: cohort batch <team.yaml> <jobs> [options] | cohort batch status <id> | cohort batch cancel <id>', 2);
        return batchCommand(team, jobs, opts);
      }),
    );
  batch
    .command('status <id>')
    .description("a batch's progress: done, failed, running, queued, usage")
    .option('--json', 'print JSON')
    .action(act((id: string, opts) => batchStatusCommand(id, opts)));
  batch
    .command('cancel <id>')
    .description('cancel a batch and its running sessions')
    .action(act((id: string) => batchCancelCommand(id)));

  program
    .command('ls')
    .description('list sessions (a visibility query), newest first')
    .option('--status <status>', 'running, completed, failed, cancelled, terminated, timed_out')
    .option('--team <name>', 'only sessions of this team (CohortTeam search attribute)')
    .option('--limit <n>', 'at most this many (default 20)')
    .option('--json', 'print JSON')
    .action(act((opts) => lsCommand(opts)));

  program
    .command('watch <id>')
    .description("follow a session's agents live until it ends")
    .action(act((id: string) => watchCommand(id)));

  program
    .command('transcript <id>')
    .description("an agent's whole conversation, read from workflow history")
    .option('--agent <name>', 'lead (default), a subagent name (its first instance) or an instance id like researcher-1')
    .option('--format <format>', 'md (default) or json')
    .action(act((id: string, opts) => transcriptCommand(id, opts)));

  program
    .command('doctor')
    .description('check the Temporal server, namespace, search attributes, workers and model API; say what to fix')
    .option('--task-queue <name>', 'task queue whose workers to look for (default: cohort, or COHORT_TASK_QUEUE)')
    .action(act((opts) => doctorCommand(opts)));

  return program;
}

export async function main(argv = process.argv): Promise<void> {
  // Tracing is on only when the OTEL_* environment asks for it; spans are flushed before exit.
  const tracing = setupTracing();
  if (tracing) process.once('beforeExit', () => void tracing.shutdown());
  await buildProgram().parseAsync(argv);
}
