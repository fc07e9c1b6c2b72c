/** create_subagent, fork_history and the per-call model override. */
import { querySession, sessionResult } from '../src/client/session';
import { agentCall, toolUse } from './helpers/script';
import { requestsOf, startHarness, teamFromYaml, type Harness } from './helpers/session';

const TEAM = `
version: 1
name: maker
lead:
  model: sonnet
  prompt: "You lead the maker team."
  tools: [web_fetch, read_file]
agents:
  researcher:
    description: Finds sources
    prompt: "You are the researcher."
`;

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

test('create_subagent registers an agent the lead can call; clashes, bad tools and bad models create nothing', async () => {
  h = await startHarness({
    rules: [
      {
        match: { system: '^You lead', turn: 1 },
        reply: {
          content: [
            toolUse('create_subagent', { name: 'critic', description: 'Criticises drafts', prompt: 'You are the critic.', tools: ['read_file'], model: 'haiku' }),
            toolUse('create_subagent', { name: 'researcher', description: 'Clash', prompt: 'x' }),
            toolUse('create_subagent', { name: 'hacker', description: 'Bad tools', prompt: 'x', tools: ['web_search'] }),
            toolUse('create_subagent', { name: 'boss', description: 'Orchestrates', prompt: 'x', tools: ['agent'] }),
            toolUse('create_subagent', { name: 'oracle', description: 'Bad model', prompt: 'x', model: 'gpt4' }),
            toolUse('create_subagent', { name: 'helper', description: 'Helps', prompt: 'You are the helper.' }),
          ],
        },
      },
      { match: { system: '^You lead', turn: 2 }, reply: { content: [agentCall({ subagent: 'critic', task: 'Criticise the plan' })] } },
      { match: { system: '^You are the critic' }, reply: { content: 'Critic: the plan is thin' } },
      { match: { system: '^You lead', turn: 3 }, reply: { content: 'Final.' } },
    ],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Make a team');
  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  const calls = requestsOf(h.sim, /^You lead/);
  const r = calls[1].last_user;
  expect(r).toContain('{"created":"critic","description":"Criticises drafts","model":"claude-haiku-4-5","tools":["read_file"]}');
  expect(r).toContain('"type":"name_taken"');
  expect(r).toContain('not yours: web_search');
  expect(r).toContain('orchestration tools cannot be granted to a created agent: agent');
  expect(r).toContain('unknown model \\"gpt4\\"');
  // Tools default to the lead's own non-orchestration tools.
  expect(r).toContain('{"created":"helper","description":"Helps","model":"claude-sonnet-4-5","tools":["web_fetch","read_file"]}');
  // The agent tool now lists the created agents; the critic ran with only its granted tool and model.
  expect(calls[1].tools).toContain('agent');
  const [critic] = requestsOf(h.sim, /^You are the critic/);
  expect(critic.tools).toEqual(['read_file']);
  expect(critic.model).toBe('claude-haiku-4-5');
  expect(calls[2].last_user).toContain('Critic: the plan is thin');
  const state = await querySession(handle);
  expect(state.definitions!.map((d) => d.name)).toEqual(['critic', 'helper']);
});

test('fork_history gives the child the parent\'s recent turns; a per-call model override runs the same subagent on another model', async () => {
  h = await startHarness({
    rules: [
      { match: { system: '^You lead', turn: 1 }, reply: { content: [toolUse('think', { thought: 'The code word is PINEAPPLE-3.' })] } },
      {
        match: { system: '^You lead', turn: 2 },
        reply: {
          content: [
            agentCall({ subagent: 'researcher', task: 'Use what I said', fork_history: 'all' }),
            agentCall({ subagent: 'researcher', task: 'Fresh start', model: 'opus' }),
            agentCall({ subagent: 'researcher', task: 'Only the last turn', fork_history: 1, context: 'extra context here' }),
          ],
        },
      },
      { match: { system: '^You lead', turn: 3 }, reply: { content: 'Final.' } },
    ],
  });
  const handle = await h.start(teamFromYaml(TEAM), 'Fork it');
  await sessionResult(handle);
  const children = requestsOf(h.sim, /^You are the researcher/);
  const forked = children.find((c) => c.last_user.endsWith('Use what I said'))!;
  expect(forked.last_user).toContain('<parent_history>');
  expect(forked.last_user).toContain('USER: Fork it');
  expect(forked.last_user).toContain('The code word is PINEAPPLE-3.');
  // The reply making the call is not part of the history.
  expect(forked.last_user).not.toContain('[called agent');
  const fresh = children.find((c) => c.last_user === 'Fresh start')!;
  expect(fresh.model).toBe('claude-opus-4-1');
  expect(forked.model).toBe('claude-sonnet-4-5');
  const last = children.find((c) => c.last_user.includes('</parent_history>\n\nOnly the last turn'))!;
  // One turn = the last assistant reply and the user message before it: not the original task.
  expect(last.last_user).toContain('[called think');
  expect(last.last_user).not.toContain('USER: Fork it');
  expect(last.last_user).toContain('<context>\nextra context here\n</context>');
});
