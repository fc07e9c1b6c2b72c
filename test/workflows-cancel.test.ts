/** Cancellation: the session cascades to running children (partial usage kept); close_agent does one subtree. */
import { WorkflowExecutionStatusName } from '@temporalio/client';
import { cancelSession, querySession, sessionResult } from '../src/client/session';
import { agentCall, toolUse } from './helpers/script';
import { requestsOf, startHarness, teamFromYaml, type Harness } from './helpers/session';
import { testClient, uniqueTaskQueue } from './helpers/temporal';
import { waitFor } from './helpers/wait';

const TEAM = `
version: 1
name: stopper
lead: { model: sonnet, prompt: "You lead the stopper team." }
agents:
  researcher: { description: Researches slowly, prompt: "You are the researcher.", tools: [read_file] }
  analyst: { description: Analyses slowly, prompt: "You are the analyst.", tools: [read_file] }
`;

/** Turn 1 reads a file (300 input tokens); turn 2 hangs long enough to be cancelled. */
const slowChild = (role: string) => [
  { match: { system: `^You are the ${role}`, turn: 1 }, reply: { content: [toolUse('read_file', { path: 'missing.txt' })], usage: { input_tokens: 300, output_tokens: 0 } } },
  { match: { system: `^You are the ${role}`, turn: 2 }, reply: { content: 'too late' }, delay_ms: 30_000 },
];

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

test('cancelling the session cancels its running children, keeps their partial usage and ends cancelled', async () => {
  h = await startHarness({
    rules: [
      ...slowChild('researcher'),
      ...slowChild('analyst'),
      { match: { system: '^You lead', turn: 1 }, reply: { content: [agentCall({ subagent: 'researcher', task: 'R' }), agentCall({ subagent: 'analyst', task: 'A', mode: 'async' })], usage: { input_tokens: 10, output_tokens: 0 } } },
    ],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Stop me');
  // Both children finished turn 1 (their progress reached the session) and are in turn 2.
  await waitFor('both children in their second turn', async () => {
    const s = await querySession(handle);
    return s.agents.length === 2 && s.agents.every((a) => a.usage.input_tokens === 300);
  });
  const requestsBefore = h.sim.stats().log.length;
  const result = await cancelSession(handle);
  expect(result.status).toBe('cancelled');
  expect(result.usage.input_tokens).toBe(10 + 300 + 300);
  const state = await querySession(handle);
  expect(state.status).toBe('cancelled');
  // Two turns each: the first finished, the second cut short (its usage never arrived, so none is counted).
  for (const a of state.agents) expect(a).toMatchObject({ status: 'cancelled', state: 'closed', turns: 2 });
  const client = await testClient();
  for (const a of state.agents) {
    const d = await client.workflow.getHandle(a.id).describe();
    expect(d.status.name).toBe<WorkflowExecutionStatusName>('CANCELLED');
  }
  // Cancelled promptly: the 30 s second turns never answered, and nothing new was asked.
  expect(h.sim.stats().log.filter((e) => e.status === 200)).toHaveLength(requestsBefore);
});

test('close_agent cancels one running instance and reports what it spent; the session goes on', async () => {
  const id = uniqueTaskQueue('close');
  h = await startHarness({
    rules: [
      ...slowChild('researcher'),
      { match: { system: '^You lead', turn: 1 }, reply: { content: [agentCall({ subagent: 'researcher', task: 'R', mode: 'async' })] } },
      // Give the child time for its first turn before closing it.
      { match: { system: '^You lead', turn: 2 }, reply: { content: [toolUse('close_agent', { agent_id: `${id}/researcher-1` })] }, delay_ms: 1500 },
      { match: { system: '^You lead', turn: 3 }, reply: { content: 'Final without the researcher.' } },
    ],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Close one', id);
  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  expect(result.answer).toBe('Final without the researcher.');
  const lead3 = requestsOf(h.sim, /^You lead/)[2];
  expect(lead3.last_user).toContain(`"agent_id":"${id}/researcher-1","state":"closed","turns":2,"tokens":300`);
  expect(lead3.last_user).toContain('cancelled: cancelled by its parent');
  expect(result.agents[0]).toMatchObject({ status: 'cancelled', turns: 2 });
  expect(result.usage.input_tokens).toBeGreaterThanOrEqual(300);
});
