/** Live instances: send_message (with and without trigger), close_agent, idle timeout, max_sub_agents. */
import { querySession, sessionResult, startSession } from '../src/client/session';
import { agentCall, toolUse, turnRule } from './helpers/script';
import { requestsOf, startHarness, teamFromYaml, type Harness } from './helpers/session';
import { testClient, uniqueTaskQueue } from './helpers/temporal';

const TEAM = `
version: 1
name: live
lead:
  model: sonnet
  prompt: "You lead the live team."
agents:
  researcher:
    description: Finds sources
    prompt: "You are the researcher."
  analyst:
    description: Analyses findings
    prompt: "You are the analyst."
limits:
  max_parallel_agents: 1
  max_sub_agents: 1
`;

const lead = (turn: number, content: Parameters<typeof turnRule>[2]) => turnRule('^You lead', turn, content);

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

test('a sleeping instance takes a queued note and a triggered task with its history kept; its result reaches the lead; close_agent closes it', async () => {
  const sessionId = uniqueTaskQueue('live');
  const id = `${sessionId}/researcher-1`;
  h = await startHarness({
    rules: [
      turnRule('researcher', 1, 'R-first: three sources'),
      turnRule('researcher', 2, 'R-second: two more sources'),
      lead(1, [agentCall({ subagent: 'researcher', task: 'Find sources on X' })]),
      lead(2, [
        toolUse('send_message', { agent_id: id, message: 'Note: prefer 2024 sources.' }),
        toolUse('send_message', { agent_id: id, message: 'Now find sources on Y.', trigger: true }),
      ]),
      lead(3, 'Asked for more; waiting.'),
      lead(4, [toolUse('close_agent', { agent_id: id })]),
      lead(5, 'Final: X and Y covered.'),
    ],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Research X', sessionId);
  const result = await sessionResult(handle);
  expect(result.answer).toBe('Final: X and Y covered.');
  expect(result.agents.map((a) => a.id)).toEqual([id]);

  const researcher = requestsOf(h.sim, /researcher/);
  expect(researcher).toHaveLength(2);
  // The second task continued the same conversation: turn 2, and the note came with the trigger.
  expect(researcher[1].turn).toBe(2);
  expect(researcher[1].last_user).toContain('Now find sources on Y.');
  expect(researcher[1].last_user).toContain('Message from your parent: Note: prefer 2024 sources.');

  const calls = requestsOf(h.sim, /^You lead/);
  expect(calls[2].last_user).toContain(`{"agent_id":"${id}","queued":true}`);
  expect(calls[2].last_user).toContain(`{"agent_id":"${id}","status":"running","task":2}`);
  expect(calls[3].last_user).toContain(`<agent_result agent_id="${id}" status="completed">`);
  expect(calls[3].last_user).toContain('R-second: two more sources');
  expect(calls[4].last_user).toContain(`"agent_id":"${id}","state":"closed"`);
  const state = await querySession(handle);
  expect(state.agents[0]).toMatchObject({ state: 'closed', status: 'completed', tasks: 2, turns: 2 });
});

test('max_sub_agents counts sleeping instances; an idle instance ends by itself and frees its place', async () => {
  h = await startHarness({
    rules: [
      lead(1, [agentCall({ subagent: 'researcher', task: 'Find A' })]),
      lead(2, [agentCall({ subagent: 'analyst', task: 'Analyse A' })]),
      // Slow turn: the researcher's idle timeout (1 s) passes meanwhile.
      { ...lead(3, [toolUse('list_agents', {})]), delay_ms: 2500 },
      lead(4, [agentCall({ subagent: 'analyst', task: 'Analyse A again' })]),
      lead(5, 'Final.'),
    ],
  });
  const handle = await startSession(await testClient(), teamFromYaml(TEAM), 'Limits', {
    taskQueue: h.taskQueue,
    id: uniqueTaskQueue('limits'),
    options: { instanceIdleTimeoutMs: 1000 },
  });
  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  const calls = requestsOf(h.sim, /^You lead/);
  expect(calls[2].last_user).toContain('"type":"limit_reached"');
  expect(calls[2].last_user).toContain('max_sub_agents (1) live instances already exist');
  const listed = JSON.parse(calls[3].last_user);
  expect(listed.instances).toEqual([expect.objectContaining({ agent_id: `${handle.workflowId}/researcher-1`, state: 'done' })]);
  expect(calls[4].last_user).toContain('Role: You are the analyst.');
  // Only the instances that were created exist; the refused call created nothing.
  expect(result.agents.map((a) => a.id)).toEqual([`${handle.workflowId}/researcher-1`, `${handle.workflowId}/analyst-1`]);
  const state = await querySession(handle);
  expect(state.agents.map((a) => a.state)).toEqual(['done', 'closed']);
});
