import * as path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { loadSimScript, startSim, type SimServer, type SimStats } from '../src/sim';
import { runSimCommand, simOptionsFromFlags } from '../src/cli/sim';
import { agentToolDefinition } from '../src/shared/orchestration-schemas';
import { CLIENT_TOOLS } from '../src/shared/tools';
import type { AgentSpec } from '../src/shared/team';

const FIXTURES = path.join(__dirname, 'fixtures', 'sim');
const MODEL = 'claude-sonnet-4-5';

type Params = Anthropic.MessageCreateParamsNonStreaming;
type Tool = Anthropic.Tool;

function spec(name: string, description: string): AgentSpec {
  return { name, description, prompt: `You are the ${name}.`, tools: ['web_fetch'], model: MODEL, maxTurns: 10, maxTokens: 1024 };
}

const TEAM = {
  researcher: spec('researcher', 'Finds and reads sources on one sub-question'),
  writer: spec('writer', 'Turns findings into a clear summary'),
};
const AGENT_TOOL = agentToolDefinition(TEAM) as Tool;
const WEB_FETCH = CLIENT_TOOLS.web_fetch as Tool;
const LEAD_SYSTEM = 'You are the lead of a research team.\nDelegate sub-questions.';
const TASK = 'Compare SQLite and PostgreSQL for a small web app';

function client(sim: SimServer, apiKey = 'test'): Anthropic {
  return new Anthropic({ apiKey, baseURL: sim.url, maxRetries: 0 });
}

function ask(text: string, extra: Partial<Params> = {}): Params {
  return { model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: text }], ...extra };
}

function leadTurn1(): Params {
  return ask(TASK, { system: LEAD_SYSTEM, tools: [AGENT_TOOL] });
}

/** Catches the SDK error a call rejects with, failing the test if it resolves. */
async function apiError(p: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  try {
    await p;
  } catch (err) {
    if (err instanceof Anthropic.APIError) return err;
    throw err;
  }
  throw new Error('expected the call to fail with an APIError');
}

describe('sim default policy', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim();
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  test('a lead fans out one agent tool_use per subagent, then quotes every result in its answer', async () => {
    const api = client(sim);
    const first = await api.messages.create(leadTurn1());

    expect(first.stop_reason).toBe('tool_use');
    expect(first.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('2 sub-questions') });
    const calls = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(calls.map((c) => [c.name, (c.input as { subagent: string }).subagent])).toEqual([
      ['agent', 'researcher'],
      ['agent', 'writer'],
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    for (const c of calls) expect(c.id).toMatch(/^toolu_/);
    const researcherTask = (calls[0].input as { task: string }).task;
    expect(researcherTask).toContain(TASK);
    expect(researcherTask).toContain('Finds and reads sources on one sub-question');

    const second = await api.messages.create({
      ...leadTurn1(),
      messages: [
        { role: 'user', content: TASK },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: calls[0].id, content: 'SQLite needs no server.' },
            { type: 'tool_result', tool_use_id: calls[1].id, content: [{ type: 'text', text: 'Summary: pick SQLite\nuntil you need concurrency.' }] },
          ],
        },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    const answer = second.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(answer).toContain('### researcher\n> SQLite needs no server.');
    expect(answer).toContain('### writer\n> Summary: pick SQLite\n> until you need concurrency.');
    expect(sim.stats().log.map((e) => e.turn)).toEqual([1, 2]);
  });

  test('a subagent given a URL fetches it with web_fetch, then reports with its role, task and source', async () => {
    const api = client(sim);
    const system = 'You are a careful researcher.\nCite sources.';
    const task = 'Summarise https://example.com/guide.html, please.';
    const first = await api.messages.create(ask(task, { system, tools: [WEB_FETCH] }));
    expect(first.stop_reason).toBe('tool_use');
    const fetch = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(fetch).toMatchObject({ name: 'web_fetch', input: { url: 'https://example.com/guide.html' } });

    const second = await api.messages.create(
      ask(task, {
        system,
        tools: [WEB_FETCH],
        messages: [
          { role: 'user', content: task },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: fetch!.id, content: 'Example   Domain guide body' }] },
        ],
      }),
    );
    expect(second.stop_reason).toBe('end_turn');
    const text = second.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(text).toContain('You are a careful researcher.');
    expect(text).toContain(task);
    expect(text).toContain('Example Domain guide body');
  });

  test('with tool_choice none or no tools the answer is always text', async () => {
    const api = client(sim);
    const task = 'Read https://example.com and tell me about it';
    const none = await api.messages.create(ask(task, { tools: [WEB_FETCH], tool_choice: { type: 'none' } }));
    const noTools = await api.messages.create(ask(task));
    const lead = await api.messages.create({ ...leadTurn1(), tool_choice: { type: 'none' } });
    for (const m of [none, noTools, lead]) {
      expect(m.stop_reason).toBe('end_turn');
      expect(m.content.every((b) => b.type === 'text')).toBe(true);
    }
  });

  test('the same request gets the same answer (deterministic output)', async () => {
    const api = client(sim);
    const a = await api.messages.create(leadTurn1());
    const b = await api.messages.create(leadTurn1());
    expect(b).toEqual(a);
  });

  test('streaming gives the same message as a plain call, through the SDK stream helper', async () => {
    const api = client(sim);
    const plain = await api.messages.create(leadTurn1());
    const deltas: string[] = [];
    const stream = api.messages.stream(leadTurn1());
    stream.on('text', (t) => deltas.push(t));
    const streamed = await stream.finalMessage();

    expect(streamed.id).toBe(plain.id);
    expect(streamed.content).toEqual(plain.content);
    expect(streamed.stop_reason).toBe('tool_use');
    expect(streamed.usage.output_tokens).toBe(plain.usage.output_tokens);
    expect(deltas.length).toBeGreaterThan(1); // text arrived in several deltas
    expect(sim.stats().log.map((e) => e.stream)).toEqual([false, true]);
  });

  test('count_tokens and models answer like the API', async () => {
    const api = client(sim);
    const count = await api.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(400) }] });
    expect(count.input_tokens).toBeGreaterThanOrEqual(100);
    const ids: string[] = [];
    for await (const m of api.models.list()) ids.push(m.id);
    expect(ids).toContain('claude-sonnet-4-5');
    expect(sim.stats().requests).toBe(0); // only model calls are counted
  });

  test('a malformed request gets a 400 that names the missing field', async () => {
    const res = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toContain('max_tokens');
  });
});

describe('sim scripted mode', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ script: loadSimScript(path.join(FIXTURES, 'scripted.json')) });
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  test('a rule matching system and turn answers with its reply, completed with ids, usage and stop_reason', async () => {
    const api = client(sim);
    const msg = await api.messages.create(leadTurn1());
    expect(msg.content[0]).toEqual({ type: 'text', text: 'Delegating to the scout.' });
    expect(msg.content[1]).toMatchObject({ type: 'tool_use', name: 'agent', input: { subagent: 'scout' }, id: expect.stringMatching(/^toolu_/) });
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', model: MODEL, stop_reason: 'tool_use', id: expect.stringMatching(/^msg_/) });
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBeGreaterThan(0);

    // Turn 2 of the same lead does not match the turn-1 rule: the default policy answers.
    const later = await api.messages.create({
      ...leadTurn1(),
      messages: [
        { role: 'user', content: TASK },
        { role: 'assistant', content: 'Thinking.' },
        { role: 'user', content: 'Go on' },
      ],
    });
    expect(later.content.filter((b) => b.type === 'tool_use')).toHaveLength(2);
  });

  test('has_tool and last_user must both hold, and times caps a rule before the fallback policy answers', async () => {
    const api = client(sim);
    const weather = ask('what is the weather today?', { system: 'You are a helper.', tools: [WEB_FETCH] });
    const text = (m: Anthropic.Message) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

    expect(text(await api.messages.create(ask('what is the weather today?')))).not.toContain('sunny'); // no web_fetch offered
    expect(text(await api.messages.create(weather))).toBe('It is sunny (scripted, once).');
    const second = text(await api.messages.create(weather));
    expect(second).not.toContain('sunny');
    expect(second).toContain('You are a helper.'); // the default policy's finding

    sim.reset(); // counters start again
    expect(text(await api.messages.create(weather))).toBe('It is sunny (scripted, once).');
  });

  test('an error rule makes the SDK raise APIError with that status, headers and body', async () => {
    const api = client(sim);
    const overloaded = await apiError(api.messages.create(ask('overload me')));
    expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError);
    expect(overloaded.status).toBe(529);
    expect(overloaded.headers?.get('retry-after')).toBe('7');
    expect(overloaded.headers?.get('x-should-retry')).toBe('true');
    expect(overloaded.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });

    const custom = await apiError(api.messages.create(ask('custom error')));
    expect(custom).toBeInstanceOf(Anthropic.BadRequestError);
    expect(custom.message).toContain('prompt is too long');

    const streamed = await apiError(api.messages.stream(ask('overload me')).finalMessage());
    expect(streamed.status).toBe(529);
    expect(sim.stats().by_status).toEqual({ '529': 2, '400': 1 });
  });

  test('delay_ms holds the answer back, and overlapping requests show in max_concurrent', async () => {
    const api = client(sim);
    const [a, b] = await Promise.all([api.messages.create(ask('slow one')), api.messages.create(ask('slow two'))]);
    expect([a.content, b.content]).toEqual([
      [{ type: 'text', text: 'slow answer' }],
      [{ type: 'text', text: 'slow answer' }],
    ]);
    const stats = sim.stats();
    expect(stats.max_concurrent).toBe(2);
    for (const e of stats.log) expect(e.end - e.start).toBeGreaterThanOrEqual(290);
  });

  test('fallback "error" answers 500 saying no rule matched', async () => {
    sim.setScript(loadSimScript(path.join(FIXTURES, 'strict.json')));
    try {
      const api = client(sim);
      const pong = await api.messages.create(ask('ping'));
      expect(pong.content).toEqual([{ type: 'text', text: 'pong' }]);
      const err = await apiError(api.messages.create(ask('something else')));
      expect(err.status).toBe(500);
      expect(err.message).toContain('no rule matched');
    } finally {
      sim.setScript(loadSimScript(path.join(FIXTURES, 'scripted.json')));
    }
  });
});

describe('sim stats', () => {
  test('counts requests by status, logs what each request carried, and serves the same over HTTP', async () => {
    const sim = await startSim({ script: { rules: [{ match: { last_user: 'fail' }, error: { status: 503 } }] } });
    try {
      const api = client(sim);
      const before = Date.now();
      await api.messages.create(ask('hello', { system: [{ type: 'text', text: 'Part one.' }, { type: 'text', text: 'Part two.' }] }));
      await api.messages.stream({
        ...leadTurn1(),
        messages: [
          { role: 'user', content: TASK },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'agent', input: { subagent: 'writer', task: 't' } }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'writer says hi' },
              { type: 'text', text: 'and a note' },
            ],
          },
        ],
      }).finalMessage();
      await apiError(api.messages.create(ask('please fail')));

      const stats: SimStats = sim.stats();
      expect(stats.requests).toBe(3);
      expect(stats.by_status).toEqual({ '200': 2, '503': 1 });
      expect(stats.max_concurrent).toBe(1);
      expect(stats.log[0]).toMatchObject({ status: 200, model: MODEL, system: 'Part one.\nPart two.', last_user: 'hello', turn: 1, tools: [], stream: false });
      expect(stats.log[1]).toMatchObject({ status: 200, system: LEAD_SYSTEM, last_user: 'writer says hi\nand a note', turn: 2, tools: ['agent'], stream: true });
      expect(stats.log[2]).toMatchObject({ status: 503, last_user: 'please fail' });
      for (const e of stats.log) {
        expect(e.start).toBeGreaterThanOrEqual(before);
        expect(e.end).toBeGreaterThanOrEqual(e.start);
      }
      const overHttp = await (await fetch(`${sim.url}/_sim/stats`)).json();
      expect(overHttp).toEqual(stats);
    } finally {
      await sim.close();
    }
  });
});

describe('sim faults and limits', () => {
  test('rpm: the request over the limit gets 429 with retry-after and rate-limit headers', async () => {
    const sim = await startSim({ rpm: 2 });
    try {
      const api = client(sim);
      const first = await api.messages.create(ask('one')).withResponse();
      expect(first.response.headers.get('anthropic-ratelimit-requests-limit')).toBe('2');
      expect(first.response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('1');
      expect(Date.parse(first.response.headers.get('anthropic-ratelimit-requests-reset') ?? '')).toBeGreaterThan(Date.now());
      await api.messages.create(ask('two'));
      const limited = await apiError(api.messages.create(ask('three')));
      expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
      const retryAfter = Number(limited.headers?.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers?.get('anthropic-ratelimit-requests-remaining')).toBe('0');
      expect(sim.stats().by_status).toEqual({ '200': 2, '429': 1 });

      sim.reset(); // a fresh window
      await expect(api.messages.create(ask('four'))).resolves.toMatchObject({ type: 'message' });
    } finally {
      await sim.close();
    }
  });

  test('tpm: once the window holds more tokens than the limit, requests get 429', async () => {
    const sim = await startSim({ tpm: 20 });
    try {
      const api = client(sim);
      const ok = await api.messages.create(ask('a question long enough to use most of the budget')).withResponse();
      expect(ok.response.headers.get('anthropic-ratelimit-tokens-limit')).toBe('20');
      const limited = await apiError(api.messages.create(ask('again')));
      expect(limited.status).toBe(429);
      expect(limited.message).toContain('tokens per minute');
      expect(limited.headers?.get('anthropic-ratelimit-tokens-remaining')).toBe('0');
    } finally {
      await sim.close();
    }
  });

  test('failRate 1 answers every request with 500 or 529', async () => {
    const sim = await startSim({ failRate: 1 });
    try {
      const api = client(sim);
      for (let i = 0; i < 4; i++) {
        const err = await apiError(api.messages.create(ask(`try ${i}`)));
        expect([500, 529]).toContain(err.status);
      }
    } finally {
      await sim.close();
    }
  });

  test('apiKey: other keys get 401; the key works as Bearer token or x-api-key', async () => {
    const sim = await startSim({ apiKey: 'right' });
    try {
      const denied = await apiError(client(sim, 'wrong').messages.create(ask('hi')));
      expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
      await expect(client(sim, 'right').messages.create(ask('hi'))).resolves.toMatchObject({ type: 'message' });
      const raw = await fetch(`${sim.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'right' },
        body: JSON.stringify(ask('hi')),
      });
      expect(raw.status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  test('latencyMs delays every answer', async () => {
    const sim = await startSim({ latencyMs: 150 });
    try {
      await client(sim).messages.create(ask('hi'));
      const [entry] = sim.stats().log;
      expect(entry.end - entry.start).toBeGreaterThanOrEqual(140);
    } finally {
      await sim.close();
    }
  });
});

describe('sim scripts that are wrong', () => {
  test('a bad script file is refused with errors naming the file and each bad path', () => {
    const file = path.join(FIXTURES, 'bad-script.json');
    let message = '';
    try {
      loadSimScript(file);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`${file}: rules.0.match.turn:`);
    expect(message).toMatch(new RegExp(`${file.replace(/[.\\/]/g, '\\$&')}: rules\\.1\\.match\\.system: invalid regular expression`));
    expect(message).toContain(`${file}: rules.2: set exactly one of "reply" and "error"`);
  });

  test('unreadable or non-JSON files name the path', () => {
    const missing = path.join(FIXTURES, 'no-such-script.json');
    expect(() => loadSimScript(missing)).toThrow(`${missing}: cannot read sim script`);
    const truncated = path.join(FIXTURES, 'truncated.json');
    expect(() => loadSimScript(truncated)).toThrow(`${truncated}: not valid JSON`);
  });

  test('an invalid inline script is refused by startSim and setScript', async () => {
    await expect(startSim({ script: { rules: [{ match: { turn: 0 }, reply: { content: 'x' } }] } })).rejects.toThrow('rules.0.match.turn');
    const sim = await startSim();
    try {
      expect(() => sim.setScript({ rules: [{ match: { system: '(' }, reply: { content: 'x' } }] })).toThrow('invalid regular expression');
    } finally {
      await sim.close();
    }
  });
});

describe('cohort sim command', () => {
  test('flags are checked and named when wrong', () => {
    expect(() => simOptionsFromFlags({ failRate: '2' })).toThrow('--fail-rate: expected a number between 0 and 1, got "2"');
    expect(() => simOptionsFromFlags({ port: 'abc' })).toThrow('--port');
    expect(simOptionsFromFlags({ rpm: '5', latencyMs: '10' })).toMatchObject({ rpm: 5, latencyMs: 10 });
  });

  test('prints its URL, serves requests, and stops on SIGTERM', async () => {
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.join(' '));
    });
    try {
      const done = runSimCommand({ port: '0', script: path.join(FIXTURES, 'strict.json') });
      const url = await waitFor(() => lines.map((l) => /^Cohort sim listening on (\S+)$/.exec(l)?.[1]).find(Boolean));
      expect(lines.join('\n')).toContain(`ANTHROPIC_BASE_URL=${url}`);
      const api = new Anthropic({ apiKey: 'test', baseURL: url, maxRetries: 0 });
      await expect(api.messages.create(ask('ping'))).resolves.toMatchObject({ content: [{ type: 'text', text: 'pong' }] });
      process.emit('SIGTERM');
      await done;
      expect(lines[lines.length - 1]).toBe('Cohort sim stopped after 1 requests.');
      await expect(fetch(`${url}/_sim/stats`)).rejects.toThrow();
    } finally {
      log.mockRestore();
    }
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
