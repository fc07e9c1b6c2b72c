/** Interactive sessions: follow-ups through the `send` update, history kept, close and idle timeout. */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { closeSession, querySession, sendFollowUp, sessionResult, startSession, waitForExchange } from '../src/client/session';
import { sendUpdate } from '../src/shared/definitions';
import { requestsOf, startHarness, teamFromYaml, type Harness } from './helpers/session';
import { testClient, uniqueTaskQueue } from './helpers/temporal';

const TEAM = `
version: 1
name: chat
lead: { model: sonnet, prompt: "You lead the chat team." }
`;

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

const start = async (interactive: boolean, idleTimeoutMs?: number, task = 'What is X?') =>
  startSession(await testClient(), teamFromYaml(TEAM), task, {
    taskQueue: h.taskQueue,
    id: uniqueTaskQueue('chat'),
    interactive,
    ...(idleTimeoutMs ? { options: { idleTimeoutMs } } : {}),
  });

test('follow-ups are new lead turns with the history kept; empty messages are rejected; close ends the session', async () => {
  h = await startHarness({
    rules: [
      { match: { system: '^You lead', turn: 1 }, reply: { content: 'X is a letter.' } },
      { match: { system: '^You lead', turn: 2, last_user: '^Why\\?$' }, reply: { content: 'Because the alphabet has it.' } },
      { match: { system: '^You lead', turn: 3, last_user: '^And Y\\?$' }, reply: { content: 'Y too.' } },
    ],
  });
  const handle = await start(true);
  expect((await waitForExchange(handle, 0)).answer).toBe('X is a letter.');
  expect((await querySession(handle)).status).toBe('idle');

  await expect(handle.executeUpdate(sendUpdate, { args: ['   '] })).rejects.toThrow(WorkflowUpdateFailedError);
  expect(await sendFollowUp(handle, 'Why?')).toMatchObject({ question: 'Why?', answer: 'Because the alphabet has it.', status: 'completed' });
  expect((await sendFollowUp(handle, 'And Y?')).answer).toBe('Y too.');

  const calls = requestsOf(h.sim, /^You lead/);
  // Each follow-up continued the same conversation.
  expect(calls.map((c) => [c.turn, c.last_user])).toEqual([
    [1, 'What is X?'],
    [2, 'Why?'],
    [3, 'And Y?'],
  ]);
  await closeSession(handle);
  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  expect(result.answer).toBe('Y too.');
  const state = await querySession(handle);
  expect(state.exchanges!.map((e) => e.question)).toEqual(['What is X?', 'Why?', 'And Y?']);
  // Once closed, no more follow-ups.
  await expect(handle.executeUpdate(sendUpdate, { args: ['More?'] })).rejects.toThrow();
});

test('an interactive session ends after its idle timeout; a non-interactive one refuses follow-ups', async () => {
  h = await startHarness({
    rules: [
      // Slow enough that the follow-up reaches the session while it still runs.
      { match: { system: '^You lead', last_user: 'slow' }, reply: { content: 'Slow answer.' }, delay_ms: 2000 },
      { match: { system: '^You lead' }, reply: { content: 'Answer.' } },
    ],
  });
  const idle = await start(true, 1000);
  const result = await sessionResult(idle);
  expect(result).toMatchObject({ status: 'completed', answer: 'Answer.' });

  const plain = await start(false, undefined, 'A slow question');
  const err = await plain.executeUpdate(sendUpdate, { args: ['Hello?'] }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  expect(String((err as WorkflowUpdateFailedError).cause?.message)).toMatch(/is not interactive/);
  expect((await sessionResult(plain)).status).toBe('completed');
});
