/** Continue-as-new between lead turns carries definitions, instances, inbox, usage and conversation. */
import type { WorkflowExecutionStatusName, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { querySession, sessionResult, startSession } from '../src/client/session';
import type { SimScript } from '../src/sim';
import { agentCall, toolUse } from './helpers/script';
import { requestsOf, startHarness, teamFromYaml, type Harness } from './helpers/session';
import { testClient, uniqueTaskQueue } from './helpers/temporal';

const TEAM = `
version: 1
name: long
lead: { model: sonnet, prompt: "You lead the long team.", tools: [read_file] }
agents:
  researcher: { description: Researches, prompt: "You are the researcher.", tools: [] }
`;

/** A session touching every piece of carried state: a created agent, a sleeping instance, an async result. */
function script(sessionId: string): SimScript {
  const lead = (turn: number, content: Parameters<typeof toolUse>[1] | string | ReturnType<typeof toolUse>[]) => ({
    match: { system: '^You lead', turn },
    reply: { content: content as string },
  });
  return {
    rules: [
      { match: { system: '^You are the researcher', turn: 1 }, reply: { content: 'R: first finding' } },
      { match: { system: '^You are the researcher', turn: 2 }, reply: { content: 'R: second finding' }, delay_ms: 500 },
      { match: { system: '^You are the critic' }, reply: { content: 'C: critique' } },
      lead(1, [toolUse('create_subagent', { name: 'critic', description: 'Criticises', prompt: 'You are the critic.' })]),
      lead(2, [agentCall({ subagent: 'researcher', task: 'Find' })]),
      lead(3, [agentCall({ subagent: 'critic', task: 'Criticise' })]),
      lead(4, [toolUse('send_message', { agent_id: `${sessionId}/researcher-1`, message: 'Find more', trigger: true })]),
      lead(5, 'Waiting for the researcher.'),
      lead(6, 'Final: first finding, critique, second finding.'),
    ],
  };
}

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

async function runOnce(continueAsNewAfterEvents?: number) {
  const id = uniqueTaskQueue('long');
  h.sim.setScript(script(id));
  h.sim.reset();
  const handle = await startSession(await testClient(), teamFromYaml(TEAM), 'A long task', {
    taskQueue: h.taskQueue,
    id,
    ...(continueAsNewAfterEvents ? { options: { continueAsNewAfterEvents } } : {}),
  });
  const result = await sessionResult(handle);
  const leadCalls = requestsOf(h.sim, /^You lead/).map((c) => ({ turn: c.turn, tools: c.tools, last_user: c.last_user.split(id).join('<id>') }));
  const researcherTurns = requestsOf(h.sim, /^You are the researcher/).map((r) => r.turn);
  return { handle, result, leadCalls, researcherTurns, state: await querySession(handle) };
}

test('a session forced to continue-as-new gives the same answer, and the new runs keep every piece of state', async () => {
  h = await startHarness();
  const plain = await runOnce();
  const forced = await runOnce(25);

  expect(plain.state.runs).toBe(1);
  expect(forced.state.runs).toBeGreaterThan(1);
  const first = await (await testClient()).workflow.getHandle(forced.handle.workflowId, (forced.handle as WorkflowHandleWithFirstExecutionRunId).firstExecutionRunId).describe();
  expect(first.status.name).toBe<WorkflowExecutionStatusName>('CONTINUED_AS_NEW');

  expect(forced.result.status).toBe('completed');
  expect(forced.result.answer).toBe(plain.result.answer);
  // The lead saw exactly the same conversation, turn by turn: nothing lost, nothing resent twice.
  expect(forced.leadCalls).toEqual(plain.leadCalls);
  expect(forced.leadCalls.map((c) => c.turn)).toEqual([1, 2, 3, 4, 5, 6]);
  // Definitions, instances (the sleeping researcher took a second task) and usage came along.
  expect(forced.state.definitions!.map((d) => d.name)).toEqual(['critic']);
  expect(forced.state.agents.map((a) => [a.name, a.tasks, a.state])).toEqual([
    ['researcher', 2, 'closed'],
    ['critic', 1, 'closed'],
  ]);
  expect(forced.result.usage).toEqual(plain.result.usage);
  // The researcher's second task continued its own conversation in both sessions.
  expect(forced.researcherTurns).toEqual([1, 2]);
  expect(plain.researcherTurns).toEqual([1, 2]);
});
