/**
 * Records the replay histories in test/replay/: runs representative sessions on a fresh in-memory
 * dev server with the simulated model and Cohort's real workers, then saves each workflow's
 * history (the session's and every subagent's) as JSON, the format `temporal workflow show
 * --output json` writes. Session ids are fixed (`replay-<scenario>`, children
 * `replay-<scenario>/<agent>-<n>`) because replay needs the original workflow id; the file name
 * `<scenario>.<session|agent-n>.json` encodes it.
 *
 *   node -r ./test/support/ts-register.js scripts/record-replay.ts [outDir]
 *
 * Re-record after a deliberate, versioned change to workflow code (see test/replay/README.md).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { connectClient, connectWorkerConnection } from '../src/client/connection';
import { startDevServer, type DevServer } from '../src/client/devserver';
import { sessionResult, startSession } from '../src/client/session';
import type { SimScript } from '../src/sim';
import { startSim } from '../src/sim';
import { parseTeam } from '../src/team';
import { createWorkers, installQuietRuntime } from '../src/worker';

interface Scenario {
  name: string;
  what: string;
  team: string;
  task: string;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'solo',
    what: 'a lead with no agents answers in one model call',
    team: 'version: 1\nname: solo\nlead:\n  model: sonnet\n  prompt: "You answer alone."\n',
    task: 'What is the boiling point of water?',
  },
  {
    name: 'fanout',
    what: 'a lead delegates to three subagents, two at a time, then writes the answer',
    team: `version: 1
name: trio
lead:
  model: sonnet
  prompt: "You lead the trio team."
agents:
  researcher: { description: Finds sources on one sub-question, prompt: "You are the researcher." }
  analyst: { description: Analyses findings for one sub-question, prompt: "You are the analyst." }
  writer: { description: Writes one section of the report, prompt: "You are the writer." }
limits:
  max_parallel_agents: 2
`,
    task: 'Compare heat pumps and gas boilers',
  },
  {
    name: 'tools-retry',
    what: 'the first model call is overloaded (529, retried), then the lead reads a file and answers',
    team: 'version: 1\nname: reader\nlead:\n  model: sonnet\n  prompt: "You read notes."\n  tools: [read_file]\n',
    task: 'What do the notes say?',
  },
  {
    name: 'child-error',
    what: "a subagent's model call fails with a 400; the lead is told and still answers",
    team: `version: 1
name: fragile
lead:
  model: sonnet
  prompt: "You lead the fragile team."
agents:
  fragile: { description: Breaks on every request, prompt: "You are the fragile one." }
`,
    task: 'Try the fragile agent',
  },
  {
    name: 'async',
    what: 'think, an async delegation, the lead ending its turn and being woken by the inbox, list_agents',
    team: `version: 1
name: waiter
lead:
  model: sonnet
  prompt: "You lead the async team."
agents:
  researcher: { description: Finds sources on one sub-question, prompt: "You are the researcher." }
`,
    task: 'Look into heat pumps in the background',
  },
];

const SCRIPT: SimScript = {
  rules: [
    {
      match: { system: '^You lead the async team', turn: 1 },
      reply: {
        content: [
          { type: 'tool_use', name: 'think', input: { thought: 'Delegate in the background, then wait.' } },
          { type: 'tool_use', name: 'agent', input: { subagent: 'researcher', task: 'Find one source on heat pumps', mode: 'async' } },
        ],
      },
    },
    { match: { system: '^You lead the async team', turn: 2 }, reply: { content: 'Waiting for the researcher.' } },
    { match: { system: '^You lead the async team', turn: 3 }, reply: { content: [{ type: 'tool_use', name: 'list_agents', input: {} }] } },
    { match: { system: '^You lead the async team', turn: 4 }, reply: { content: 'The researcher reported back; done.' } },
    { match: { system: '^You are the researcher' }, reply: { content: 'Source: heat pumps move heat.' }, delay_ms: 300 },
    { match: { system: '^You read notes' }, error: { status: 529 }, times: 1 },
    { match: { system: '^You read notes', turn: 1 }, reply: { content: [{ type: 'tool_use', name: 'read_file', input: { path: 'notes.txt' } }] } },
    { match: { system: '^You read notes', turn: 2 }, reply: { content: 'The notes say N-1.' } },
    { match: { system: '^You are the fragile' }, error: { status: 400 } },
  ],
};

async function main(): Promise<void> {
  const outDir = resolve(process.argv[2] ?? join(__dirname, '..', 'test', 'replay'));
  installQuietRuntime();
  // A fresh server: fixed workflow ids never clash, and no one's real server gets test sessions.
  const server: DevServer = await startDevServer({ headless: true, log: (l) => process.stderr.write(`${l}\n`) });
  const settings = { address: server.address, namespace: server.namespace };
  const sim = await startSim({ script: SCRIPT });
  const workDir = mkdtempSync(join(tmpdir(), 'cohort-replay-'));
  writeFileSync(join(workDir, 'notes.txt'), 'N-1: heat pumps move heat rather than make it.\n');
  const taskQueue = 'record-replay';
  const connection = await connectWorkerConnection(settings);
  const workers = await createWorkers({
    connection,
    namespace: settings.namespace,
    taskQueue,
    activities: { model: { apiKey: 'sim', baseURL: sim.url }, workDir },
  });
  const { client, connection: clientConnection } = await connectClient(settings);
  const done = new AbortController();
  const running = Promise.all(workers.map((w) => w.runUntil(new Promise((r) => done.signal.addEventListener('abort', r)))));
  try {
    mkdirSync(outDir, { recursive: true });
    for (const f of readdirSync(outDir)) if (f.endsWith('.json')) rmSync(join(outDir, f));
    for (const s of SCENARIOS) {
      const team = parseTeam(s.team, { file: `${s.name}.yaml`, baseDir: workDir }).team;
      const handle = await startSession(client, team, s.task, { taskQueue, id: `replay-${s.name}` });
      const result = await sessionResult(handle);
      const ids = [handle.workflowId, ...result.agents.map((a) => a.id)];
      for (const id of ids) {
        const history = await client.workflow.getHandle(id).fetchHistory();
        const label = id === handle.workflowId ? 'session' : id.slice(id.lastIndexOf('/') + 1);
        const file = join(outDir, `${s.name}.${label}.json`);
        writeFileSync(file, `${historyToJSON(history)}\n`);
      }
      process.stdout.write(`${s.name}: ${result.status}, ${ids.length} histories (${s.what})\n`);
    }
  } finally {
    done.abort();
    await running;
    await clientConnection.close();
    await connection.close();
    await sim.close();
    await server.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`record-replay: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
