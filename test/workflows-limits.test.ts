/** Limits: session budget, per-call caps, max_depth, per-call max_turns and timeout, ungranted tools. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { querySession, sessionResult } from '../src/client/session';
import { agentCall, toolUse } from './helpers/script';
import { requestsOf, startHarness, teamFromYaml, type Harness } from './helpers/session';

const usage = (input_tokens: number, output_tokens: number) => ({ input_tokens, output_tokens });

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

test('a session budget spent mid-fan-out: later calls get budget_exhausted, the lead concludes without tools, status budget_exhausted', async () => {
  h = await startHarness({
    rules: [
      { match: { system: '^You are the worker' }, reply: { content: 'Worker finding', usage: usage(1000, 100) } },
      {
        match: { system: '^You lead', turn: 1 },
        reply: {
          content: [1, 2, 3, 4].map((i) => agentCall({ subagent: 'worker', task: `Part ${i}` })),
          usage: usage(10, 10),
        },
      },
      { match: { system: '^You lead', turn: 2 }, reply: { content: 'Concluding with two parts.', usage: usage(10, 10) } },
    ],
  });
  const team = teamFromYaml(`
version: 1
name: budget
lead: { model: sonnet, prompt: "You lead the budget team." }
agents:
  worker: { description: Does one part, prompt: "You are the worker." }
limits: { max_parallel_agents: 1, budget_tokens: 2000 }
`);
  const handle = await h.start(team, 'Four parts');
  const result = await sessionResult(handle);
  expect(result.status).toBe('budget_exhausted');
  expect(result.answer).toBe('Concluding with two parts.');
  // Two workers ran (1120, then 2220 tokens spent); the other two were never started.
  expect(requestsOf(h.sim, /^You are the worker/)).toHaveLength(2);
  expect(result.agents).toHaveLength(2);
  const [, last] = requestsOf(h.sim, /^You lead/);
  expect(last.system).toContain('Your budget is spent');
  expect(last.last_user.match(/"type":"budget_exhausted"/g)).toHaveLength(2);
  expect(last.last_user.match(/Worker finding/g)).toHaveLength(2);
  expect(result.usage.input_tokens + result.usage.output_tokens).toBe(2 * 1100 + 40);
});

test('per-call and per-definition budget caps and per-call max_turns stop one child each; max_depth 2 lets a subagent delegate once; usage rolls up the tree', async () => {
  h = await startHarness({
    rules: [
      // researcher (depth 1): delegates to the analyst, then answers.
      { match: { system: '^You are the researcher', turn: 1 }, reply: { content: [agentCall({ subagent: 'analyst', task: 'Deep dive' })], usage: usage(100, 0) } },
      { match: { system: '^You are the researcher', turn: 2 }, reply: { content: 'Researcher: built on the analysis', usage: usage(100, 0) } },
      // analyst (depth 2): tries to delegate, is refused, answers.
      { match: { system: '^You are the analyst', turn: 1 }, reply: { content: [agentCall({ subagent: 'researcher', task: 'Go deeper' })], usage: usage(1000, 0) } },
      { match: { system: '^You are the analyst', turn: 2 }, reply: { content: 'Analyst: done', usage: usage(1000, 0) } },
      // looper: a tool call every turn; stopped by its cap (tokens) or its turn limit.
      { match: { system: 'budget is spent' }, reply: { content: 'Looper: partial, budget spent', usage: usage(300, 0) } },
      { match: { system: '^You are the (looper|capped)' }, reply: { content: [toolUse('read_file', { path: 'a.txt' })], usage: usage(300, 0) } },
      {
        match: { system: '^You lead', turn: 1 },
        reply: {
          content: [
            agentCall({ subagent: 'researcher', task: 'Research' }),
            agentCall({ subagent: 'looper', task: 'Loop A', budget_tokens: 500 }),
            agentCall({ subagent: 'looper', task: 'Loop B', max_turns: 2 }),
            agentCall({ subagent: 'capped', task: 'Loop C' }),
          ],
          usage: usage(10, 0),
        },
      },
      { match: { system: '^You lead', turn: 2 }, reply: { content: 'Final.', usage: usage(10, 0) } },
    ],
  });
  writeFileSync(join(h.workDir, 'a.txt'), 'file A');
  const team = teamFromYaml(`
version: 1
name: deep
lead: { model: sonnet, prompt: "You lead the deep team.", tools: [read_file] }
agents:
  researcher: { description: Researches, prompt: "You are the researcher.", tools: [] }
  analyst: { description: Analyses, prompt: "You are the analyst.", tools: [] }
  looper: { description: Loops, prompt: "You are the looper.", tools: [read_file] }
  capped: { description: Loops on a budget, prompt: "You are the capped.", tools: [read_file], budget_tokens: 500 }
limits: { max_depth: 2, max_parallel_agents: 4 }
`);
  const handle = await h.start(team, 'Go');
  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  const sid = handle.workflowId;

  // Depth 1 gets the orchestration tools; depth 2 does not, and is told why when it asks.
  const [r1] = requestsOf(h.sim, /^You are the researcher/);
  expect(r1.tools).toEqual(expect.arrayContaining(['agent', 'wait_agent', 'list_agents']));
  const analyst = requestsOf(h.sim, /^You are the analyst/);
  expect(analyst[0].tools).not.toContain('agent');
  expect(analyst[1].last_user).toContain('"type":"tool_not_allowed"');
  expect(analyst[1].last_user).toContain('subagents at depth 2 cannot delegate (limits.max_depth is 2');

  // Loop A: 300, 600 tokens (spent) → one last turn without tools; Loop B: 2 turns. 5 calls in all.
  const loopers = requestsOf(h.sim, /^You are the looper/);
  expect(loopers).toHaveLength(5);
  expect(loopers.filter((r) => r.system.includes('Your budget is spent'))).toHaveLength(1);
  expect(loopers.filter((r) => r.system.includes('You have reached your turn limit'))).toHaveLength(1);
  const lead2 = requestsOf(h.sim, /^You lead/)[1];
  expect(lead2.last_user).toContain('[looper stopped: its budget is spent]');
  expect(lead2.last_user).toContain('Looper: partial, budget spent');
  // Per-call max_turns 2: stopped at its turn limit.
  expect(lead2.last_user).toContain('[looper stopped at its turn limit]');

  const state = await querySession(handle);
  const researcher = state.agents.find((a) => a.id === `${sid}/researcher-1`)!;
  // The researcher's usage includes its analyst child (2 × 100 + 2 × 1000).
  expect(researcher.usage.input_tokens).toBe(2200);
  const loopInstances = state.agents.filter((a) => a.name === 'looper');
  expect(loopInstances.map((a) => a.status).sort()).toEqual(['budget_exhausted', 'max_turns']);
  expect(loopInstances.find((a) => a.status === 'budget_exhausted')!.usage.input_tokens).toBe(900);
  expect(loopInstances.find((a) => a.status === 'max_turns')!.usage.input_tokens).toBe(600);
  // The per-definition cap works like the per-call one.
  const capped = state.agents.find((a) => a.name === 'capped')!;
  expect(capped).toMatchObject({ status: 'budget_exhausted', turns: 3 });
  expect(capped.usage.input_tokens).toBe(900);
  // Session = lead 20 + researcher subtree 2200 + loopers 900 + 600 + capped 900.
  expect(result.usage.input_tokens).toBe(20 + 2200 + 900 + 600 + 900);
});

test('a tool the agent was not granted is refused as an error result and never runs; a per-call timeout cancels the child', async () => {
  h = await startHarness({
    rules: [
      { match: { system: '^You are the reader', turn: 1 }, reply: { content: [toolUse('read_file', { path: 'secret.txt' })] } },
      { match: { system: '^You are the reader', turn: 2 }, reply: { content: 'Reader: could not read it' } },
      { match: { system: '^You are the sleeper' }, reply: { content: 'Sleeper: late' }, delay_ms: 5000 },
      {
        match: { system: '^You lead', turn: 1 },
        reply: { content: [agentCall({ subagent: 'reader', task: 'Read secret.txt' }), agentCall({ subagent: 'sleeper', task: 'Nap', timeout_s: 1 })] },
      },
      { match: { system: '^You lead', turn: 2 }, reply: { content: 'Final.' } },
    ],
  });
  writeFileSync(join(h.workDir, 'secret.txt'), 'TOP-SECRET-4711');
  const team = teamFromYaml(`
version: 1
name: grants
lead: { model: sonnet, prompt: "You lead the grants team.", tools: [read_file] }
agents:
  reader: { description: Reads, prompt: "You are the reader.", tools: [] }
  sleeper: { description: Sleeps, prompt: "You are the sleeper.", tools: [] }
`);
  const handle = await h.start(team, 'Try');
  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  const reader = requestsOf(h.sim, /^You are the reader/);
  expect(reader[0].tools).toEqual([]);
  expect(reader[1].last_user).toContain('"type":"tool_not_allowed"');
  expect(reader[1].last_user).toContain('tool \\"read_file\\" is not granted to reader-1 (granted: none)');
  // Never executed: the file's content reached no model.
  expect(h.sim.stats().log.some((e) => e.last_user.includes('TOP-SECRET-4711'))).toBe(false);
  const lead2 = requestsOf(h.sim, /^You lead/)[1];
  expect(lead2.last_user).toContain('"type":"timeout"');
  expect(lead2.last_user).toContain('gave no result within 1s and was cancelled');
  const state = await querySession(handle);
  expect(state.agents.find((a) => a.name === 'sleeper')).toMatchObject({ status: 'timed_out', state: 'closed' });
});
