/** The `cohort` command line. */
import { Command } from 'commander';
import { CliError } from './errors';
import { runCommand } from './run';
import { resultCommand, startCommand, statusCommand } from './sessions';
import { devCommand, serverCommand, workerCommand } from './servers';
import { runSimCommand } from './sim';
import { runValidate } from './validate';
import { setupCommand } from './setup';

type Action = (...args: any[]) => Promise<number | void>;

/** Runs a command action, turning CliErrors into a message and an exit code. */
function act(fn: Action) {
  return async (...args: unknown[]) => {
    try {
      const code = await fn(...args);
      process.exitCode = typeof code === 'number' ? code : 0;
    } catch (err) {
      if (err instanceof CliError) {
        process.stderr.write(`cohort: ${err.message}\n`);
        process.exitCode = err.exitCode;
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
    .action(act((team: string, task: string, opts) => runCommand(team, task, opts)));

  program
    .command('start <team> <task>')
    .description('start a session and print its workflow id (needs a running worker: cohort worker / cohort dev)')
    .option('--id <id>', 'workflow id for the session')
    .option('--task-queue <name>', 'task queue')
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

  return program;
}

export async function main(argv = process.argv): Promise<void> {
  await buildProgram().parseAsync(argv);
}
