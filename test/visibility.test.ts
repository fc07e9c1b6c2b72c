/**
 * What a user sees of a session in the Temporal UI, read back through the client: summaries,
 * details, search attributes, visibility queries, activity summaries, current details.
 */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { COHORT_AGENT, COHORT_STATUS, COHORT_TEAM } from '../src/shared/search-attributes';
import { startHarness, teamFromYaml, type Harness } from './helpers/session';
import { testClient } from './helpers/temporal';
import { waitFor } from './helpers/wait';

let h: Harness;
afterAll(async () => {
  await h?.stop();
});

test('a session and its subagents are summarised, tagged and filterable as a user would see them in the UI', async () => {
  h = await startHarness();
  const teamName = `vis-${randomBytes(3).toString('hex')}`;
  const team = teamFromYaml(`
version: 1
name: ${teamName}
lead:
  model: sonnet
  prompt: "You lead the visible team."
agents:
  researcher: { description: Finds sources on one sub-question, prompt: "You are the researcher.", model: haiku }
`);
  const task = 'Which heat pumps work below -20 °C?';
  const { handle, result } = await h.run(team, task);
  expect(result.status).toBe('completed');

  const session = await handle.describe();
  expect(await session.staticSummary()).toBe(task);
  expect(await session.staticDetails()).toContain(`Team **${teamName}**`);
  expect(session.typedSearchAttributes.get(COHORT_TEAM)).toBe(teamName);
  expect(session.typedSearchAttributes.get(COHORT_STATUS)).toBe('completed');

  const child = await (await testClient()).workflow.getHandle(`${handle.workflowId}/researcher-1`).describe();
  expect(await child.staticSummary()).toMatch(/^researcher: /);
  expect(child.typedSearchAttributes.get(COHORT_AGENT)).toBe('researcher');
  expect(child.typedSearchAttributes.get(COHORT_TEAM)).toBe(teamName);

  // The list view's filter, as typed into the UI.
  const client = await testClient();
  const ids = await waitFor('the session in a visibility query', async () => {
    const found: string[] = [];
    for await (const wf of client.workflow.list({ query: `CohortTeam = '${teamName}' AND CohortStatus = 'completed' AND WorkflowType = 'sessionWorkflow'` })) {
      found.push(wf.workflowId);
    }
    return found.length ? found : undefined;
  });
  expect(ids).toEqual([handle.workflowId]);

  // Each model call's activity says which agent, turn and model it was.
  const summaries: string[] = [];
  for (const e of (await handle.fetchHistory()).events ?? []) {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name !== 'callModel') continue;
    const payload = e.userMetadata?.summary;
    if (payload) summaries.push(defaultPayloadConverter.fromPayload<string>(payload as never));
  }
  expect(summaries).toEqual(['lead · turn 1 · claude-sonnet-4-5', 'lead · turn 2 · claude-sonnet-4-5']);

  // Current details: the agent table the UI shows on the workflow page.
  const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
  expect(meta.currentDetails).toContain(`**${teamName}**`);
  expect(meta.currentDetails).toMatch(/\| researcher-1 \| claude-haiku-4-5 \|/);
});
