/** `cohort ls`, `cohort transcript` and `cohort watch` as a user reads them, against a real session. */
import { randomBytes } from 'node:crypto';
import { sessionResult } from '../src/client/session';
import { assertBuilt, cliEnv, runCli } from './helpers/cli';
import { startHarness, teamFromYaml, type Harness } from './helpers/session';
import { testAddress } from './helpers/temporal';
import { waitFor } from './helpers/wait';

const teamName = `views${randomBytes(3).toString('hex')}`;
const TEAM = `
version: 1
name: ${teamName}
lead:
  model: sonnet
  prompt: "You lead the views team."
agents:
  researcher:
    description: Finds sources on one sub-question
    prompt: "You are the researcher."
`;

let h: Harness;
let sessionId: string;
const env = () => cliEnv({ TEMPORAL_ADDRESS: testAddress() });

beforeAll(async () => {
  assertBuilt();
  h = await startHarness({
    rules: [{ match: { system: '^You are the researcher' }, reply: { content: 'Researcher finding R-42: heat pumps win on running cost.' } }],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Compare heat pumps and gas boilers');
  sessionId = handle.workflowId;
  expect((await sessionResult(handle)).status).toBe('completed');
});
afterAll(async () => {
  await h?.stop();
});

test('cohort ls --team shows the finished session with its status, team and task', async () => {
  const r = await waitFor('the session in the visibility store', async () => {
    const out = await runCli(['ls', '--team', teamName, '--status', 'completed'], env());
    return out.stdout.includes(sessionId) ? out : undefined;
  });
  expect(r.code).toBe(0);
  const [header, row, ...rest] = r.stdout.trimEnd().split('\n');
  expect(header).toMatch(/^ID\s+STATUS\s+TEAM\s+STARTED \(UTC\)\s+SUMMARY$/);
  expect(row).toMatch(new RegExp(`^${sessionId}\\s+completed\\s+${teamName}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+Compare heat pumps and gas boilers$`));
  expect(rest).toEqual([]);

  const none = await runCli(['ls', '--team', teamName, '--status', 'running'], env());
  expect(none.stdout).toBe('');
  expect(none.stderr).toContain('no sessions match');
  const bad = await runCli(['ls', '--status', 'sleepy'], env());
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--status must be one of running, completed, failed, cancelled');
});

test("cohort transcript shows the lead's system prompt, task, tool call and the subagent's answer coming back", async () => {
  const r = await runCli(['transcript', sessionId], env());
  expect(r.code).toBe(0);
  const md = r.stdout;
  expect(md).toMatch(new RegExp(`^# Transcript of lead · ${sessionId}\n\n2 model turns · \\d+ tok · \\$0\\.\\d{4}`));
  expect(md).toContain('Subagents: researcher-1');
  expect(md).toMatch(/## System prompt\n\n```text\nYou lead the views team\./);
  expect(md).toMatch(/## Turn 1 · claude-sonnet-4-5 · \d+ in \/ \d+ out tokens · \$0\.\d{4} · tool_use/);
  expect(md).toMatch(/\*\*User\*\*\n\nCompare heat pumps and gas boilers/);
  expect(md).toMatch(/\*\*Tool call\*\* `agent` \(toolu_\w+\)\n\n```json\n\{\n {2}"subagent": "researcher"/);
  expect(md).toMatch(/## Turn 2 · .* · end_turn/);
  expect(md).toMatch(/\*\*Tool result\*\* of `agent` \(toolu_\w+\)\n\n> .*R-42/);
  // Turn order: the call precedes its result, which precedes the final answer.
  expect(md.indexOf('**Tool call**')).toBeLessThan(md.indexOf('**Tool result**'));

  const sub = await runCli(['transcript', sessionId, '--agent', 'researcher', '--format', 'json'], env());
  expect(sub.code).toBe(0);
  const t = JSON.parse(sub.stdout);
  expect(t.agent).toBe('researcher-1');
  expect(t.workflowId).toBe(`${sessionId}/researcher-1`);
  expect(t.turns).toHaveLength(1);
  expect(t.turns[0].system).toMatch(/^You are the researcher/);
  expect(JSON.stringify(t.turns[0].input)).toContain('Compare heat pumps and gas boilers');
  expect(t.turns[0].reply.content).toEqual([{ type: 'text', text: 'Researcher finding R-42: heat pumps win on running cost.' }]);
  expect(t.turns[0].reply.usage.input_tokens).toBeGreaterThan(0);

  const unknown = await runCli(['transcript', sessionId, '--agent', 'astrologer'], env());
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain(`session ${sessionId} has no agent "astrologer" (agents: lead, researcher-1)`);
});

test('cohort watch of a finished session prints its agents and the final status line', async () => {
  const r = await runCli(['watch', sessionId], env());
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(new RegExp(`^${sessionId} completed · \\d+ tok · \\$0\\.\\d{4} · 1 subagent\n$`));
  expect(r.stderr).toMatch(/researcher-1 completed \(1 turns?, /);
  const missing = await runCli(['watch', 'no-such-session'], env());
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('no session with id no-such-session');
});
