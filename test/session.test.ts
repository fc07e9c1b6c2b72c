import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { querySession, sessionResult } from '../src/client/session';
import { maxOverlap, requestsOf, startHarness, teamFromYaml, type Harness } from './helpers/session';
import { teamYaml } from './helpers/teams';
import { waitFor } from './helpers/wait';

const TEAM = teamYaml('trio', ['researcher', 'analyst', 'writer'], 'limits:\n  max_parallel_agents: 2');

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

test('a lead fans out to 3 subagents with max_parallel_agents 2: two run at once and all 3 results reach the lead', async () => {
  h = await startHarness({
    rules: [
      { match: { system: 'researcher' }, reply: { content: 'Researcher finding R-42' }, delay_ms: 1500 },
      { match: { system: 'analyst' }, reply: { content: 'Analyst finding A-17' }, delay_ms: 1500 },
      { match: { system: 'writer' }, reply: { content: 'Writer finding W-99' }, delay_ms: 1500 },
    ],
  });
  const team = teamFromYaml(TEAM);
  const handle = await h.start(team, 'Compare heat pumps and gas boilers');

  // While two subagents run, the third waits for a slot.
  const busy = await waitFor('two running subagents and one queued', async () => {
    const s = await querySession(handle);
    const count = (st: string) => s.agents.filter((a) => a.status === st).length;
    return count("running") === 2 && count("queued") === 1 ? s : undefined;
  });
  expect(busy.agents.map((a) => a.name).sort()).toEqual(['analyst', 'researcher', 'writer']);

  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  expect(result.answer).toContain('R-42');
  expect(result.answer).toContain('A-17');
  expect(result.answer).toContain('W-99');

  const subagentCalls = requestsOf(h.sim, /^You are the/);
  expect(subagentCalls).toHaveLength(3);
  expect(maxOverlap(subagentCalls)).toBe(2);

  expect(result.agents).toHaveLength(3);
  for (const a of result.agents) {
    expect(a.status).toBe('completed');
    expect(a.turns).toBe(1);
    expect(a.id).toMatch(new RegExp(`^${handle.workflowId}/(researcher|analyst|writer)-1$`));
    expect(a.usage.input_tokens).toBeGreaterThan(0);
  }
  // Session usage is the lead's plus every subagent's.
  const childIn = result.agents.reduce((n, a) => n + a.usage.input_tokens, 0);
  const leadCalls = requestsOf(h.sim, /^You lead/);
  expect(leadCalls).toHaveLength(2);
  expect(result.usage.input_tokens).toBeGreaterThan(childIn);
  expect(result.usage.cost_usd).toBeGreaterThan(0);
});

test('an unknown subagent and an invalid agent input reach the lead as error tool results, and the session completes', async () => {
  h = await startHarness({
    rules: [
      {
        match: { system: '^You lead', turn: 1 },
        reply: {
          content: [
            { type: 'tool_use', name: 'agent', input: { subagent: 'astrologer', task: 'Read the stars' } },
            { type: 'tool_use', name: 'agent', input: { subagent: 'researcher' } },
            { type: 'tool_use', name: 'agent', input: { subagent: 'researcher', task: 'Find one source' } },
          ],
        },
      },
    ],
  });
  const { result } = await h.run(teamFromYaml(TEAM), 'Anything');
  expect(result.status).toBe('completed');
  const [, second] = requestsOf(h.sim, /^You lead/);
  expect(second.turn).toBe(2);
  expect(second.last_user).toContain('"type":"unknown_subagent"');
  expect(second.last_user).toContain('no subagent named \\"astrologer\\" (available: researcher, analyst, writer)');
  expect(second.last_user).toContain('"type":"invalid_input"');
  expect(second.last_user).toMatch(/task: .*(expected string|Invalid input)/);
  // Only the valid call started a subagent.
  expect(result.agents.map((a) => a.name)).toEqual(['researcher']);
  expect(result.agents[0].status).toBe('completed');
});

test('a 400 from the model fails that subagent cleanly, once, and the lead is told', async () => {
  h = await startHarness({
    rules: [
      {
        match: { system: 'analyst' },
        error: { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } } },
      },
    ],
  });
  const { result } = await h.run(teamFromYaml(TEAM), 'Compare two things');
  expect(result.status).toBe('completed');
  const byName = Object.fromEntries(result.agents.map((a) => [a.name, a]));
  expect(byName.analyst.status).toBe('failed');
  expect(byName.researcher.status).toBe('completed');
  expect(byName.writer.status).toBe('completed');
  // Non-retryable: the model saw the analyst's request exactly once.
  expect(requestsOf(h.sim, /analyst/)).toHaveLength(1);
  const last = requestsOf(h.sim, /^You lead/).pop()!;
  expect(last.last_user).toContain('"type":"child_failed"');
  expect(last.last_user).toContain('prompt is too long');
});

test('max_turns stops a model that never ends its turn', async () => {
  h = await startHarness({
    rules: [{ match: { has_tool: 'read_file' }, reply: { content: [{ type: 'tool_use', name: 'read_file', input: { path: 'notes.txt' } }] } }],
  });
  writeFileSync(join(h.workDir, 'notes.txt'), 'the notes say 1234');
  const team = teamFromYaml(`
version: 1
name: looper
lead:
  model: haiku
  prompt: "You loop forever."
  tools: [read_file]
  max_turns: 3
`);
  const { result } = await h.run(team, 'Read the notes');
  expect(result.status).toBe('max_turns');
  const calls = requestsOf(h.sim, /^You loop forever/);
  expect(calls).toHaveLength(3);
  // The tool really ran between turns, and the last turn was told to conclude.
  expect(calls[1].last_user).toContain('the notes say 1234');
  expect(calls[2].system).toContain('turn limit');
  expect(result.answer).toMatch(/Stopped after 3 turns/);
});
