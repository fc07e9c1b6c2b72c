import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { htmlToText } from '../../src/activities/html-text';
import { createToolActivities, truncateResult } from '../../src/activities/tools';
import type { RunToolInput, RunToolOutput } from '../../src/shared/activity-types';

const PAGE = `<!doctype html><html><head><title>Tides &amp; Moons</title>
<style>body { color: red }</style><script>alert("x")</script></head>
<body><h1>Tides</h1><p>The moon&#39;s pull &mdash; twice a day.</p>
<!-- a comment --><ul><li>Spring&nbsp;tide</li><li>Neap tide</li></ul></body></html>`;

let server: http.Server;
let base: string;
let workDir: string;
let outsideDir: string;
let runTool: (input: RunToolInput) => Promise<RunToolOutput>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (req.url === '/plain') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(50));
    } else if (req.url === '/image') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50]));
    } else if (req.url === '/slow') {
      // Never answers: the fetch must give up on its own (closeAllConnections ends it).
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  workDir = await mkdtemp(path.join(tmpdir(), 'cohort-tools-'));
  outsideDir = await mkdtemp(path.join(tmpdir(), 'cohort-outside-'));
  await mkdir(path.join(workDir, 'notes'));
  await writeFile(path.join(workDir, 'notes', 'plan.md'), '# Plan\nRead the sources.\n');
  await writeFile(path.join(outsideDir, 'secret.txt'), 'do not read');
  await symlink(path.join(outsideDir, 'secret.txt'), path.join(workDir, 'link.txt'));
  ({ runTool } = createToolActivities({ workDir, fetchTimeoutMs: 300 }));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(workDir, { recursive: true, force: true });
  await rm(outsideDir, { recursive: true, force: true });
});

function run(name: string, input: Record<string, unknown>, maxResultChars = 20_000): Promise<RunToolOutput> {
  // Quiet logger: failures are expected in these tests.
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  return env.run(runTool, { agentId: 'researcher-1', name, input, maxResultChars });
}

function errorOf(output: RunToolOutput): { type: string; message: string; status?: number } {
  expect(output.isError).toBe(true);
  return (JSON.parse(output.content) as { error: { type: string; message: string; status?: number } }).error;
}

describe('htmlToText', () => {
  it('keeps the words and paragraph breaks, drops scripts, styles, tags and comments', () => {
    expect(htmlToText(PAGE)).toBe(
      "Tides & Moons\n\nTides\n\nThe moon's pull — twice a day.\n\nSpring tide\n\nNeap tide",
    );
  });

  it('does not turn escaped markup into tags', () => {
    expect(htmlToText('<p>use &lt;script&gt; &#x41;&#66;</p>')).toBe('use <script> AB');
  });
});

describe('runTool web_fetch', () => {
  it('returns an HTML page as readable text', async () => {
    const output = await run('web_fetch', { url: `${base}/page` });
    expect(output.isError).toBe(false);
    expect(output.content).toContain("The moon's pull — twice a day.");
    expect(output.content).not.toContain('alert');
    expect(output.content).not.toContain('<');
  });

  it('reports a non-2xx status as an error result', async () => {
    const error = errorOf(await run('web_fetch', { url: `${base}/missing` }));
    expect(error.type).toBe('http_error');
    expect(error.status).toBe(404);
    expect(error.message).toContain('404');
  });

  it('refuses non-http(s) URLs and non-text content', async () => {
    expect(errorOf(await run('web_fetch', { url: 'file:///etc/passwd' })).message).toContain('only http(s)');
    expect(errorOf(await run('web_fetch', { url: 'not a url' })).type).toBe('invalid_input');
    expect(errorOf(await run('web_fetch', {})).type).toBe('invalid_input');
    expect(errorOf(await run('web_fetch', { url: `${base}/image` })).type).toBe('unsupported_content');
  });

  it('times out with an error result', async () => {
    const error = errorOf(await run('web_fetch', { url: `${base}/slow` }));
    expect(error.type).toBe('timeout');
  });

  it('reports an unreachable host as an error result', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = errorOf(await run('web_fetch', { url: `http://127.0.0.1:${port}/` }));
    expect(error.type).toBe('fetch_failed');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('truncates long results with a visible marker', async () => {
    const output = await run('web_fetch', { url: `${base}/plain` }, 20);
    expect(output.isError).toBe(false);
    expect(output.content).toBe(`${'x'.repeat(20)}\n[truncated: 50 chars total, showing the first 20]`);
  });
});

describe('runTool read_file', () => {
  it('reads a file inside the working directory', async () => {
    const output = await run('read_file', { path: 'notes/plan.md' });
    expect(output).toEqual({ content: '# Plan\nRead the sources.\n', isError: false });
  });

  it('refuses paths that escape the working directory', async () => {
    for (const p of ['../outside.txt', 'notes/../../x', '/etc/passwd', 'link.txt']) {
      const error = errorOf(await run('read_file', { path: p }));
      expect(error.type).toBe('path_outside_workdir');
      expect(error.message).toContain('outside the working directory');
    }
  });

  it('reports a missing file and a directory as error results', async () => {
    const missing = errorOf(await run('read_file', { path: 'notes/nope.md' }));
    expect(missing.type).toBe('not_found');
    expect(missing.message).toContain('notes/nope.md');
    expect(errorOf(await run('read_file', { path: 'notes' })).type).toBe('is_directory');
  });
});

describe('runTool', () => {
  it('answers an unknown tool with an error result', async () => {
    const error = errorOf(await run('rm_rf', {}));
    expect(error.type).toBe('unknown_tool');
    expect(error.message).toContain('rm_rf');
  });

  it('truncateResult leaves short text alone', () => {
    expect(truncateResult('short', 10)).toBe('short');
    expect(truncateResult('abcdef', 3)).toBe('abc\n[truncated: 6 chars total, showing the first 3]');
  });
});
