import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runValidate } from '../src/cli/validate';
import { TeamValidationError, loadTeam, parseDuration, parseTeam, type LoadedTeam } from '../src/team';

const FIXTURES = join(__dirname, 'fixtures', 'teams');
const fixture = (name: string): string => join(FIXTURES, name);
const EXAMPLE = join(__dirname, '..', 'examples', 'research', 'team.yaml');

/** Parses inline YAML as if it were test/fixtures/teams/team.yaml. */
function parse(yaml: string): LoadedTeam {
  return parseTeam(yaml, { file: 'team.yaml', baseDir: FIXTURES });
}

/** The problems a broken team reports (fails the test if it loads). */
function problemsOf(yaml: string): string[] {
  try {
    parse(yaml);
  } catch (err) {
    if (err instanceof TeamValidationError) return err.problems;
    throw err;
  }
  throw new Error('expected the team to be rejected');
}

async function loadProblems(file: string): Promise<string[]> {
  const err = await loadTeam(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof TeamValidationError)) throw new Error(`expected a TeamValidationError, got ${String(err)}`);
  return err.problems;
}

/** A valid team with one agent; `agent` is the YAML body of agents.helper (indented 4). */
function withAgent(agent: string, extra = ''): string {
  return `version: 1
name: t
lead:
  prompt: You lead.
  tools: [web_search]
agents:
  helper:
${agent}
${extra}`;
}

describe('the example research team', () => {
  it('loads with aliases resolved, prompts read from files, and no warnings', async () => {
    const { team, warnings } = await loadTeam(EXAMPLE);
    expect(warnings).toEqual([]);
    expect(team.name).toBe('research');
    expect(team.lead).toMatchObject({
      model: 'claude-sonnet-4-5',
      tools: ['web_search', 'web_fetch'],
      maxTurns: 30,
      maxTokens: 8192,
    });
    expect(team.lead.prompt).toBe(readFileSync(join(EXAMPLE, '..', 'prompts', 'lead.md'), 'utf8').trim());
    expect(Object.keys(team.agents)).toEqual(['researcher', 'analyst', 'writer']);
    expect(team.agents.researcher).toMatchObject({
      name: 'researcher',
      model: 'claude-haiku-4-5',
      tools: ['web_search', 'web_fetch'],
      timeoutMs: 300_000,
    });
    expect(team.agents.analyst).toMatchObject({ model: 'claude-sonnet-4-5', tools: [], timeoutMs: 180_000 });
    expect(team.agents.writer.tools).toEqual([]);
    for (const agent of Object.values(team.agents)) {
      expect(agent.description.length).toBeGreaterThan(40);
      expect(agent.prompt.length).toBeGreaterThan(200);
      // The first line names the role: logs (and the sim's stats) show it per request.
      expect(agent.prompt.split('\n')[0]).toBe(`You are the ${agent.name} on a research team.`);
    }
    expect(team.limits).toEqual({
      maxParallelAgents: 3,
      maxSubAgents: 10,
      maxDepth: 1,
      subagentTimeoutMs: 180_000,
      budgetUsd: 2,
    });
  });
});

describe('resolution', () => {
  it('resolves overridden aliases, inherit, full ids, inherited tools, MCP servers, pricing and retry', async () => {
    const { team, warnings } = await loadTeam(fixture('full.yaml'));
    expect(warnings).toEqual([]);
    expect(team.models).toMatchObject({ haiku: 'claude-3-5-haiku-latest', fast: 'claude-3-5-haiku-latest', sonnet: 'claude-sonnet-4-5' });
    expect(team.lead.model).toBe('claude-opus-4-1');
    // Omitted tools and `model: inherit` take the lead's.
    expect(team.agents.inheritor).toEqual({
      name: 'inheritor',
      description: "Inherits the lead's tools and model",
      prompt: 'You help the lead with one focused task and reply concisely.',
      tools: ['web_search', 'web_fetch', 'mcp__db__query'],
      model: 'claude-opus-4-1',
      maxTurns: 10,
      maxTokens: 4096,
      timeoutMs: 45_000,
    });
    expect(team.agents.db_analyst).toEqual({
      name: 'db_analyst',
      description: 'Queries the database and reads local files',
      prompt: 'You query the database.',
      tools: ['mcp__db__query', 'mcp__docs__search', 'read_file'],
      model: 'claude-3-5-haiku-latest',
      maxTurns: 4,
      maxTokens: 2048,
      timeoutMs: 1_500,
      budgetUsd: 0.5,
      budgetTokens: 100_000,
    });
    expect(team.agents['by-id']).toMatchObject({ model: 'claude-sonnet-4-5-20250929', tools: [], timeoutMs: 120_000 });
    expect(team.limits).toEqual({
      maxParallelAgents: 2,
      maxSubAgents: 4,
      maxDepth: 2,
      subagentTimeoutMs: 45_000,
      budgetUsd: 5,
      budgetTokens: 2_000_000,
      modelRetry: { initialIntervalMs: 2_000, backoffCoefficient: 1.5, maximumIntervalMs: 60_000, maximumAttempts: 5 },
    });
    // A pricing key may be an alias; it is stored under the model id.
    expect(team.pricing).toEqual({
      'claude-opus-4-1': { input: 10, output: 50 },
      'claude-3-5-haiku-latest': { input: 0.8, output: 4 },
    });
    expect(team.mcpServers).toEqual({
      db: { command: 'node', args: ['db-server.js'] },
      docs: { url: 'http://127.0.0.1:3001/mcp' },
    });
  });

  it('applies the defaults from the seeds when a team says nothing', () => {
    const { team } = parse(withAgent('    description: Helps the lead with anything\n    prompt: You help.'));
    expect(team.lead).toMatchObject({ model: 'claude-sonnet-4-5', maxTurns: 30, maxTokens: 8192, tools: ['web_search'] });
    expect(team.agents.helper).toMatchObject({
      model: 'claude-sonnet-4-5',
      tools: ['web_search'],
      maxTurns: 10,
      maxTokens: 4096,
      timeoutMs: 60_000,
    });
    expect(team.limits).toEqual({ maxParallelAgents: 3, maxSubAgents: 10, maxDepth: 1, subagentTimeoutMs: 60_000 });
    expect(team.pricing).toEqual({});
    expect(team.mcpServers).toEqual({});
  });

  it('treats an empty `agents:` and a missing one as no agents', async () => {
    const empty = await loadTeam(fixture('empty-agents.yaml'));
    expect(empty.team.agents).toEqual({});
    const absent = parse('version: 1\nname: solo\nlead:\n  prompt: You lead.\n');
    expect(absent.team.agents).toEqual({});
  });
});

describe('seed edge cases (spec 029)', () => {
  it.each([
    [
      'missing description',
      '    prompt: You help.',
      /^agents\.helper \(line 7\): description is required: the lead chooses which agent to call by it$/,
    ],
    [
      'both prompt and prompt_file',
      '    description: Helps with one focused task\n    prompt: You help.\n    prompt_file: prompts/helper.md',
      /^agents\.helper \(line 7\): set prompt or prompt_file, not both$/,
    ],
    [
      'neither prompt nor prompt_file',
      '    description: Helps with one focused task',
      /^agents\.helper \(line 7\): set prompt or prompt_file$/,
    ],
    [
      'a prompt_file that does not exist',
      '    description: Helps with one focused task\n    prompt_file: prompts/w.md',
      /^agents\.helper\.prompt_file \(line 9\): no such file prompts\/w\.md$/,
    ],
    [
      'an empty prompt_file',
      '    description: Helps with one focused task\n    prompt_file: prompts/empty.md',
      /^agents\.helper\.prompt_file \(line 9\): prompts\/empty\.md is empty$/,
    ],
    [
      'an empty inline prompt',
      '    description: Helps with one focused task\n    prompt: "  "',
      /^agents\.helper\.prompt \(line 9\): is empty/,
    ],
    [
      'a model outside the known aliases',
      '    description: Helps with one focused task\n    prompt: You help.\n    model: gpt4',
      /^agents\.helper\.model \(line 10\): unknown model alias "gpt4" \(known: sonnet, opus, haiku, inherit, or a full model id\)$/,
    ],
    [
      'an MCP tool whose server is not declared',
      '    description: Helps with one focused task\n    prompt: You help.\n    tools: [mcp__db__query]',
      /^agents\.helper\.tools\[0\] \(line 10\): MCP server "db" \(from "mcp__db__query"\) is not declared in mcp_servers/,
    ],
    [
      'an orchestration tool on a subagent',
      '    description: Helps with one focused task\n    prompt: You help.\n    tools: [web_fetch, agent]',
      /^agents\.helper\.tools\[1\] \(line 10\): "agent" is an orchestration tool; .*limits\.max_depth > 1/,
    ],
    [
      'an empty description',
      '    description: ""\n    prompt: You help.',
      /^agents\.helper\.description \(line 8\): is empty/,
    ],
  ])('rejects %s', (_case, agent, expected) => {
    const problems = problemsOf(withAgent(agent));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(expected);
  });

  it('accepts an unknown tool name with a warning, since it may be a server-side or MCP tool', () => {
    const { team, warnings } = parse(
      withAgent('    description: Helps with one focused task\n    prompt: You help.\n    tools: [WebSearch, web_fetch]'),
    );
    expect(team.agents.helper.tools).toEqual(['WebSearch', 'web_fetch']);
    expect(warnings).toEqual([
      expect.stringMatching(/^agents\.helper\.tools\[0\] \(line 10\): unknown tool "WebSearch": it may be a server-side or MCP tool no worker provides/),
    ]);
  });

  it('accepts an MCP tool whose server is declared in mcp_servers', () => {
    const { team, warnings } = parse(
      withAgent(
        '    description: Queries the database\n    prompt: You query.\n    tools: [mcp__db__query]',
        'mcp_servers:\n  db: { command: node, args: [server.js] }',
      ),
    );
    expect(warnings).toEqual([]);
    expect(team.agents.helper.tools).toEqual(['mcp__db__query']);
    expect(team.mcpServers.db).toEqual({ command: 'node', args: ['server.js'] });
  });

  it('points the retired subagents block (top level and under lead) to agents', async () => {
    const problems = await loadProblems(fixture('retired-subagents.yaml'));
    const hint = 'this block was removed; declare agents under `agents:` and set limits.max_parallel_agents';
    expect(problems).toEqual([`lead.subagents (line 5): ${hint}`, `subagents (line 8): ${hint}`]);
  });
});

describe('validation', () => {
  it('reports unknown keys with their path, line and a spelling hint', () => {
    const problems = problemsOf(`version: 1
name: t
lead:
  prompt: You lead.
  temperature: 0.2
agents:
  helper:
    description: Helps with one focused task
    prompt: You help.
    max_turn: 3
limits:
  max_paralel_agents: 2
claude: {}
`);
    expect(problems).toEqual([
      expect.stringMatching(/^lead\.temperature \(line 5\): unknown key "temperature" \(allowed: description, model, prompt/),
      'agents.helper.max_turn (line 10): unknown key "max_turn"; did you mean "max_turns"?',
      'limits.max_paralel_agents (line 12): unknown key "max_paralel_agents"; did you mean "max_parallel_agents"?',
      expect.stringMatching(/^claude \(line 13\): unknown key "claude" \(allowed: version, name, models, lead, agents/),
    ]);
  });

  it('reports every problem of a file at once, in file order', async () => {
    const problems = await loadProblems(fixture('many-problems.yaml'));
    expect(problems).toEqual([
      'version (line 1): must be 1, got 2',
      expect.stringMatching(/^name \(line 2\): use lowercase letters/),
      expect.stringMatching(/^lead\.model \(line 4\): "inherit" is only for agents/),
      'agents.writer (line 8): set prompt or prompt_file, not both',
      'agents.writer.model (line 12): unknown model alias "gpt4" (known: sonnet, opus, haiku, inherit, or a full model id)',
      expect.stringMatching(/^agents\.researcher \(line 13\): description is required/),
      'agents.researcher.prompt_file (line 14): no such file prompts/w.md',
      expect.stringMatching(/^agents\.researcher\.tools\[1\] \(line 15\): MCP server "db"/),
      expect.stringMatching(/^agents\.researcher\.tools\[2\] \(line 15\): "list_agents" is an orchestration tool/),
      'agents.researcher.max_turn (line 16): unknown key "max_turn"; did you mean "max_turns"?',
      expect.stringMatching(/^agents\.helper\.timeout \(line 20\): expected a positive duration like 60s.*got "soon"$/),
      'limits.max_parallel_agents (line 22): must be at least 1, got 0',
      'limits.max_depth (line 23): must be at most 3, got 4',
    ]);
  });

  it('names the file, line and column of a YAML syntax error', async () => {
    expect(await loadProblems(fixture('syntax-error.yaml'))).toEqual([
      `${fixture('syntax-error.yaml')}:6:3: Map keys must be unique`,
    ]);
    expect(problemsOf('version: 1\nlead:\n  tools: [a\n  prompt: x\nagents: {}\n')[0]).toMatch(/^team\.yaml:\d+:\d+: /);
  });

  it('reports type errors in words a user knows', () => {
    const problems = problemsOf(`version: 1
name: t
lead:
  prompt: You lead.
  tools: web_search
  max_turns: 2.5
agents:
  helper:
limits:
  budget_usd: -1
`);
    expect(problems).toEqual([
      'lead.tools (line 5): expected a list, got "web_search"',
      'lead.max_turns (line 6): expected a whole number, got 2.5',
      'agents.helper (line 8): expected a mapping, got an empty value',
      'limits.budget_usd (line 10): must be more than 0, got -1',
    ]);
  });

  it('rejects a missing lead, version and name, and an mcp server with both command and url', () => {
    // Missing top-level keys have no line, so they come first.
    expect(problemsOf('mcp_servers:\n  db: { command: node, url: "http://x.test/mcp" }\n')).toEqual([
      'version: required',
      'name: required',
      'lead: required: the lead agent (model, prompt or prompt_file, tools)',
      'mcp_servers.db (line 2): set command or url, not both',
    ]);
    expect(problemsOf('')).toEqual(['the team file is empty; it needs at least version, name and lead']);
  });

  it('warns (without failing) about unknown tools, redundant orchestration tools, duplicates, short descriptions and odd limits', async () => {
    const { team, warnings } = await loadTeam(fixture('warnings.yaml'));
    // Orchestration tools are the workflow's to add: the lead's list keeps only its own tools.
    expect(team.lead.tools).toEqual(['web_search', 'WebSearch']);
    expect(team.agents.tiny.tools).toEqual(['Read', 'web_fetch']);
    expect(warnings).toEqual([
      expect.stringMatching(/^lead\.tools\[1\] \(line 5\): unknown tool "WebSearch"/),
      expect.stringMatching(/^lead\.tools\[2\] \(line 5\): "think" is an orchestration tool; the lead gets those automatically/),
      expect.stringMatching(/^agents\.tiny\.description \(line 8\): "Helps" is very short/),
      expect.stringMatching(/^agents\.tiny\.tools\[0\] \(line 10\): unknown tool "Read"/),
      'agents.tiny.tools[2] (line 10): "web_fetch" is listed twice',
      'limits.max_parallel_agents (line 12): 5 is more than limits.max_sub_agents (2), so at most 2 agents can run at once',
    ]);
  });

  it('rejects an agent named lead and a model alias named inherit', () => {
    const problems = problemsOf(`version: 1
name: t
models:
  inherit: claude-opus-4-1
lead:
  prompt: You lead.
agents:
  lead:
    description: A second lead is confusing
    prompt: You lead too.
`);
    expect(problems).toEqual([
      expect.stringMatching(/^models\.inherit \(line 4\): "inherit" is reserved/),
      expect.stringMatching(/^agents\.lead \(line 8\): "lead" is reserved/),
    ]);
  });
});

describe('durations', () => {
  it.each([
    ['60s', 60_000],
    ['2m', 120_000],
    ['1500ms', 1_500],
    ['1h', 3_600_000],
    ['1.5m', 90_000],
    [45, 45_000],
    ['30', 30_000],
    [0.25, 250],
  ])('parses %p as %p ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each([['soon'], ['0s'], [-5], ['5 minutes'], [true], [null]])('rejects %p', (input) => {
    expect(parseDuration(input)).toBeUndefined();
  });

  it('reads durations in limits and agents and rejects bad ones with the accepted forms', () => {
    const { team } = parse(withAgent('    description: Helps with one focused task\n    prompt: You help.\n    timeout: 1h', 'limits:\n  subagent_timeout: 2m'));
    expect(team.limits.subagentTimeoutMs).toBe(120_000);
    expect(team.agents.helper.timeoutMs).toBe(3_600_000);
    expect(problemsOf(withAgent('    description: Helps with one focused task\n    prompt: You help.', 'limits:\n  subagent_timeout: 0'))).toEqual([
      'limits.subagent_timeout (line 11): expected a positive duration like 60s, 2m, 1500ms, 1h or a number of seconds, got 0',
    ]);
  });
});

describe('cohort validate', () => {
  function capture(): { io: { out: { write(s: string): boolean }; err: { write(s: string): boolean } }; out: string[]; err: string[] } {
    const out: string[] = [];
    const err: string[] = [];
    return {
      out,
      err,
      io: { out: { write: (s) => out.push(s) > 0 }, err: { write: (s) => err.push(s) > 0 } },
    };
  }

  it('prints one summary line and exits 0 for a valid team', async () => {
    const c = capture();
    expect(await runValidate(EXAMPLE, c.io)).toBe(0);
    expect(c.out.join('')).toBe('research: valid — lead (claude-sonnet-4-5, 2 tools) + 3 agents: researcher, analyst, writer\n');
    expect(c.err).toEqual([]);
  });

  it('prints warnings on stderr and still exits 0', async () => {
    const c = capture();
    expect(await runValidate(fixture('warnings.yaml'), c.io)).toBe(0);
    expect(c.out.join('')).toBe('warned: valid — lead (claude-sonnet-4-5, 2 tools) + 1 agent: tiny\n');
    const lines = c.err.join('').trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^warning: lead\.tools\[1\] \(line 5\): unknown tool "WebSearch"/);
  });

  it('prints one line per problem, prefixed with the file, and exits 2', async () => {
    const file = fixture('many-problems.yaml');
    const c = capture();
    expect(await runValidate(file, c.io)).toBe(2);
    expect(c.out).toEqual([]);
    const lines = c.err.join('').trimEnd().split('\n');
    expect(lines).toHaveLength(13);
    expect(lines).toContain(`${file}: agents.writer.model (line 12): unknown model alias "gpt4" (known: sonnet, opus, haiku, inherit, or a full model id)`);
  });

  it('prints a YAML syntax error once as file:line:col and exits 2', async () => {
    const file = fixture('syntax-error.yaml');
    const c = capture();
    expect(await runValidate(file, c.io)).toBe(2);
    expect(c.err.join('')).toBe(`${file}:6:3: Map keys must be unique\n`);
  });

  it('says so when the file does not exist, and exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cohort-team-'));
    const c = capture();
    expect(await runValidate(join(dir, 'nope.yaml'), c.io)).toBe(2);
    expect(c.err.join('')).toBe(`${join(dir, 'nope.yaml')}: no such file\n`);
  });

  it('resolves prompt_file relative to the team file, not the working directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cohort-team-'));
    writeFileSync(join(dir, 'lead.md'), 'You lead from a file.\n');
    writeFileSync(join(dir, 'team.yaml'), 'version: 1\nname: rel\nlead:\n  prompt_file: lead.md\n');
    const c = capture();
    expect(await runValidate(join(dir, 'team.yaml'), c.io)).toBe(0);
    expect((await loadTeam(join(dir, 'team.yaml'))).team.lead.prompt).toBe('You lead from a file.');
  });
});
