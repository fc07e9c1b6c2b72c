/** Async delegation, the inbox, wait_agent, list_agents, think, get_available_models. */
import { querySession, sessionResult } from '../src/client/session';
import { agentCall as agent, toolUse, turnRule } from './helpers/script';
import { requestsOf, startHarness, teamFromYaml, type Harness } from './helpers/session';

const TEAM = `
version: 1
name: duo
lead:
  model: sonnet
  prompt: "You lead the duo team."
agents:
  researcher:
    description: Finds sources on one sub-question
    prompt: "You are the researcher."
  analyst:
    description: Analyses findings
    prompt: "You are the analyst."
    model: haiku
`;

const lead = (turn: number, content: Parameters<typeof turnRule>[2]) => turnRule('^You lead', turn, content);

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

test('sync and async calls in one reply: the sync result comes first, the async one reaches the lead later through its inbox', async () => {
  h = await startHarness({
    rules: [
      { match: { system: 'researcher' }, reply: { content: 'Researcher says R-77' }, delay_ms: 2500 },
      { match: { system: 'analyst' }, reply: { content: 'Analyst says A-55' }, delay_ms: 200 },
      lead(1, [agent({ subagent: 'researcher', task: 'Find sources', mode: 'async' }), agent({ subagent: 'analyst', task: 'Analyse' })]),
      lead(2, 'Analysis in; waiting for the researcher.'),
      lead(3, 'Final: combined R-77 with A-55.'),
    ],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Compare two things');
  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  expect(result.answer).toBe('Final: combined R-77 with A-55.');

  const calls = requestsOf(h.sim, /^You lead/);
  expect(calls.map((c) => c.turn)).toEqual([1, 2, 3]);
  // Turn 2: the async call answered at once with its id, the sync one with the analyst's text.
  expect(calls[1].last_user).toContain(`{"agent_id":"${handle.workflowId}/researcher-1","status":"running"}`);
  expect(calls[1].last_user).toContain('Analyst says A-55');
  expect(calls[1].last_user).not.toContain('R-77');
  // Turn 3 came from the inbox, after the researcher finished: out of order with the calls.
  expect(calls[2].last_user).toContain(`<agent_result agent_id="${handle.workflowId}/researcher-1" status="completed">`);
  expect(calls[2].last_user).toContain('Researcher says R-77');
  const researcher = requestsOf(h.sim, /researcher/)[0];
  expect(calls[2].start).toBeGreaterThanOrEqual(researcher.end);
  expect(result.agents.map((a) => a.status).sort()).toEqual(['completed', 'completed']);
});

test('a lead that ends its turn with two async children running sleeps and is woken once per result', async () => {
  h = await startHarness({
    rules: [
      // Slow enough that both are still running when the lead ends its turn 2.
      { match: { system: 'researcher' }, reply: { content: 'Researcher says R-1' }, delay_ms: 1000 },
      { match: { system: 'analyst' }, reply: { content: 'Analyst says A-2' }, delay_ms: 3500 },
      lead(1, [agent({ subagent: 'researcher', task: 'Find', mode: 'async' }), agent({ subagent: 'analyst', task: 'Analyse', mode: 'async' })]),
      lead(2, 'Both started; I will wait.'),
      lead(3, 'Got the research; still waiting for the analysis.'),
      lead(4, 'Final: R-1 and A-2.'),
    ],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Two parts');
  const result = await sessionResult(handle);
  expect(result.answer).toBe('Final: R-1 and A-2.');
  const calls = requestsOf(h.sim, /^You lead/);
  // Exactly 4 lead calls: no polling turns while it slept.
  expect(calls).toHaveLength(4);
  expect(calls[2].last_user).toContain('Researcher says R-1');
  expect(calls[2].last_user).not.toContain('A-2');
  expect(calls[3].last_user).toContain('Analyst says A-2');
  expect(calls[3].last_user).not.toContain('R-1');
  const [researcher] = requestsOf(h.sim, /researcher/);
  const [analyst] = requestsOf(h.sim, /analyst/);
  expect(calls[2].start).toBeGreaterThanOrEqual(researcher.end);
  expect(calls[3].start).toBeGreaterThanOrEqual(analyst.end);
  // The last lead turn came after the analyst: nothing ran in between but the wait.
  expect(calls[2].end).toBeLessThan(analyst.end);
  const state = await querySession(handle);
  expect(state.inbox).toBe(0);
});

test('wait_agent returns the results that arrived, and a timeout note when they take longer than timeout_s', async () => {
  h = await startHarness({
    rules: [
      { match: { system: 'researcher' }, reply: { content: 'Researcher says R-9' }, delay_ms: 800 },
      { match: { system: 'analyst' }, reply: { content: 'Analyst says A-9' }, delay_ms: 4500 },
      lead(1, [agent({ subagent: 'researcher', task: 'Find', mode: 'async' }), agent({ subagent: 'analyst', task: 'Analyse', mode: 'async' })]),
      lead(2, [toolUse('wait_agent', { timeout_s: 2 })]),
      lead(3, [toolUse('wait_agent', {})]),
      lead(4, 'Final: R-9, A-9.'),
    ],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Wait for them');
  const result = await sessionResult(handle);
  expect(result.answer).toBe('Final: R-9, A-9.');
  const calls = requestsOf(h.sim, /^You lead/);
  expect(calls).toHaveLength(4);
  // First wait: the researcher's result, and a timeout note naming the analyst.
  expect(calls[2].last_user).toContain('Researcher says R-9');
  expect(calls[2].last_user).toContain(`"timeout":"still running after 2s: ${handle.workflowId}/analyst-1"`);
  // Second wait (no ids: every running instance) blocks until the analyst reports.
  expect(calls[3].last_user).toContain('Analyst says A-9');
  expect(calls[3].last_user).not.toContain('"timeout"');
});

test('think is recorded in the state query and UI details; list_agents and get_available_models answer without a model call', async () => {
  h = await startHarness({
    rules: [
      lead(1, [
        toolUse('think', { thought: 'Plan: ask the analyst, then list.' }),
        toolUse('get_available_models', {}),
      ]),
      lead(2, [agent({ subagent: 'analyst', task: 'Analyse X' })]),
      lead(3, [toolUse('list_agents', {})]),
      lead(4, 'Done.'),
    ],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Plan it');
  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  const state = await querySession(handle);
  expect(state.thoughts).toEqual([{ agent: 'lead', turn: 1, thought: 'Plan: ask the analyst, then list.' }]);
  // The Temporal UI shows the workflow's current details: the agent table and the thoughts.
  const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  expect(meta.currentDetails).toContain('**Thoughts**\n- lead (turn 1): Plan: ask the analyst, then list.');
  expect(meta.currentDetails).toContain('| analyst-1 | claude-haiku-4-5 | closed (completed) |');
  const calls = requestsOf(h.sim, /^You lead/);
  expect(calls[0].tools).toEqual(
    expect.arrayContaining(['agent', 'create_subagent', 'list_agents', 'send_message', 'wait_agent', 'close_agent', 'get_available_models', 'think']),
  );
  expect(calls[1].last_user).toContain('Thought recorded.');
  expect(calls[1].last_user).toContain('"haiku":"claude-haiku-4-5"');
  const listed = JSON.parse(calls[3].last_user);
  expect(listed.definitions.map((d: { name: string }) => d.name)).toEqual(['researcher', 'analyst']);
  expect(listed.instances).toEqual([
    expect.objectContaining({ agent_id: `${handle.workflowId}/analyst-1`, state: 'sleeping', last_task_status: 'completed', turns: 1 }),
  ]);
  expect(listed.instances[0].tokens).toBeGreaterThan(0);
  // 4 lead calls + 1 analyst call: think, list and models cost no model call.
  expect(h.sim.stats().requests).toBe(5);
  // The sleeping analyst was closed when the session ended.
  expect(state.agents[0].state).toBe('closed');
});
