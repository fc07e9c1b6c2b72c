import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  connectClient,
  connectionSettings,
  isServerReachable,
  uiUrlFor,
} from '../src/client/connection';
import {
  SEARCH_ATTRIBUTES,
  cachedBinaryPath,
  findTemporalBinary,
  freePort,
  registerSearchAttributes,
  startDevServer,
  type DevServer,
} from '../src/client/devserver';
import { testClient, testNamespace, uniqueTaskQueue } from './helpers/temporal';

const KEYWORD = 2; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'cohort-devserver-test-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs `fn` with some environment variables replaced, restoring them afterwards. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>): void => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('findTemporalBinary', () => {
  it('finds the cached Go-built binary when nothing else is configured', async () => {
    const found = await withEnv({ COHORT_TEMPORAL_BIN: undefined, PATH: '/usr/bin:/bin' }, () =>
      findTemporalBinary({ build: false }),
    );
    expect(found).toBe(cachedBinaryPath());
    expect(found).toMatch(/cohort\/temporal-1\.5\.1\/temporal$/);
  });

  it('prefers COHORT_TEMPORAL_BIN and names it when it is not executable', async () => {
    const fake = join(tmp, 'temporal-fake');
    writeFileSync(fake, '#!/bin/sh\n');
    chmodSync(fake, 0o755);
    await expect(withEnv({ COHORT_TEMPORAL_BIN: fake }, () => findTemporalBinary({ build: false }))).resolves.toBe(
      fake,
    );
    const notExecutable = join(tmp, 'temporal-not-executable');
    writeFileSync(notExecutable, '');
    await expect(
      withEnv({ COHORT_TEMPORAL_BIN: notExecutable }, () => findTemporalBinary({ build: false })),
    ).rejects.toThrow(`COHORT_TEMPORAL_BIN=${notExecutable} is not an executable file`);
  });

  it('says how to install the CLI when there is none and building is off', async () => {
    const emptyCache = mkdtempSync(join(tmp, 'cache-'));
    await expect(
      withEnv({ COHORT_TEMPORAL_BIN: undefined, PATH: '/usr/bin:/bin', XDG_CACHE_HOME: emptyCache }, () =>
        findTemporalBinary({ build: false }),
      ),
    ).rejects.toThrow(/No Temporal CLI found[\s\S]*go install github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1/);
  });
});

describe('the shared test server', () => {
  it('answers and has Cohort search attributes', async () => {
    const client = await testClient();
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({
      namespace: testNamespace(),
    });
    for (const name of Object.keys(SEARCH_ATTRIBUTES)) expect(customAttributes?.[name]).toBe(KEYWORD);
  });
});

describe('startDevServer with a database file', () => {
  const dbFile = () => join(tmp, 'db', 'temporal.sqlite');
  let server: DevServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('registers search attributes, stops cleanly, and keeps workflows across a restart', async () => {
    server = await startDevServer({ dbFile: dbFile(), headless: true, logFile: join(tmp, 'server.log') });
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(server.uiUrl).toBe('');
    const port = Number(server.address.split(':')[1]);
    expect(port).not.toBe(Number(process.env.TEMPORAL_TEST_ADDRESS?.split(':')[1]));

    const first = await connectClient({ address: server.address, namespace: 'default' });
    const workflowId = `devserver-persist-${Date.now()}`;
    try {
      const described = await first.connection.workflowService.describeNamespace({ namespace: 'default' });
      expect(described.namespaceInfo?.name).toBe('default');

      const { customAttributes } = await first.connection.operatorService.listSearchAttributes({
        namespace: 'default',
      });
      for (const name of Object.keys(SEARCH_ATTRIBUTES)) expect(customAttributes?.[name]).toBe(KEYWORD);
      // Registering again on a server that has them changes nothing and does not fail.
      await registerSearchAttributes(first.client, 'default');

      // No worker exists for this type: the workflow just waits, which is all we need to persist.
      await first.client.workflow.start('cohortNoSuchWorkflow', { taskQueue: uniqueTaskQueue(), workflowId });
    } finally {
      await first.connection.close();
    }

    const { pid } = server;
    await server.stop();
    server = undefined;
    expect(processAlive(pid)).toBe(false);
    expect(await isServerReachable({ address: `127.0.0.1:${port}`, namespace: 'default' }, 500)).toBe(false);

    server = await startDevServer({ dbFile: dbFile(), headless: true, port, logFile: join(tmp, 'server2.log') });
    expect(server.address).toBe(`127.0.0.1:${port}`);
    const second = await connectClient({ address: server.address, namespace: 'default' });
    try {
      const description = await second.client.workflow.getHandle(workflowId).describe();
      expect(description.type).toBe('cohortNoSuchWorkflow');
      expect(description.status.name).toBe('RUNNING');
    } finally {
      await second.connection.close();
    }
  });

  it('refuses a port that is already taken instead of mistaking another server for its own', async () => {
    const taken = Number(process.env.TEMPORAL_TEST_ADDRESS!.split(':')[1]);
    await expect(startDevServer({ port: taken, headless: true })).rejects.toThrow(
      `port ${taken} on 127.0.0.1 is already in use`,
    );
  });

  it('serves the UI on the port it reports unless headless', async () => {
    server = await startDevServer({});
    expect(server.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows$/);
    const response = await fetch(server.uiUrl);
    expect(response.status).toBe(200);
  });
});

describe('dev server lifetime', () => {
  // A child node process starts a server (TypeScript transpiled on the fly) and reports its pid.
  const script = `
    const ts = require('typescript');
    const fs = require('fs');
    require.extensions['.ts'] = (m, file) => m._compile(ts.transpileModule(fs.readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    }).outputText, file);
    const { startDevServer } = require(${JSON.stringify(join(__dirname, '..', 'src', 'client', 'devserver.ts'))});
    // A log file, not pipes: the server must be stopped by Cohort, not by a broken pipe.
    startDevServer({ headless: true, logFile: process.argv[2] }).then((s) => {
      process.stdout.write(JSON.stringify({ pid: s.pid }) + '\\n');
      if (process.argv[1] === 'exit') process.exit(0);
      setInterval(() => undefined, 1000);
    }, (err) => { console.error(err); process.exit(2); });
  `;

  async function serverPidFromChild(mode: 'exit' | 'stay'): Promise<{ serverPid: number; childPid: number }> {
    const child = spawn(process.execPath, ['-e', script, mode, join(tmp, `lifetime-${mode}.log`)], {
      cwd: join(__dirname, '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitUntil('the child to report the server pid', () => out.includes('\n') || child.exitCode !== null, 60_000);
    const { pid } = JSON.parse(out.split('\n')[0]!) as { pid: number };
    return { serverPid: pid, childPid: child.pid! };
  }

  it('stops the server when the starting process exits', async () => {
    const { serverPid } = await serverPidFromChild('exit');
    await waitUntil('the server to stop', () => !processAlive(serverPid), 15_000);
  });

  it('stops the server when the starting process is SIGKILLed', async () => {
    const { serverPid, childPid } = await serverPidFromChild('stay');
    expect(processAlive(serverPid)).toBe(true);
    process.kill(childPid, 'SIGKILL');
    await waitUntil('the server to stop', () => !processAlive(serverPid), 15_000);
  });
});

describe('isServerReachable', () => {
  it('returns false quickly for a closed port', async () => {
    const port = await freePort();
    const started = Date.now();
    expect(await isServerReachable({ address: `127.0.0.1:${port}`, namespace: 'default' }, 1000)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('returns false for a namespace the server does not have', async () => {
    const address = process.env.TEMPORAL_TEST_ADDRESS!;
    expect(await isServerReachable({ address, namespace: 'no-such-namespace' })).toBe(false);
    expect(await isServerReachable({ address, namespace: 'default' })).toBe(true);
  });
});

describe('connectionSettings', () => {
  it('defaults to a local dev server', () => {
    expect(connectionSettings({})).toEqual({ address: 'localhost:7233', namespace: 'default' });
  });

  it('reads the Temporal environment variables', () => {
    expect(
      connectionSettings({
        TEMPORAL_ADDRESS: 'my-ns.abcde.tmprl.cloud:7233',
        TEMPORAL_NAMESPACE: 'my-ns.abcde',
        TEMPORAL_API_KEY: 'secret',
        TEMPORAL_TLS: 'true',
      }),
    ).toEqual({ address: 'my-ns.abcde.tmprl.cloud:7233', namespace: 'my-ns.abcde', apiKey: 'secret', tls: true });

    expect(
      connectionSettings({
        TEMPORAL_TLS_CLIENT_CERT_PATH: '/certs/client.pem',
        TEMPORAL_TLS_CLIENT_KEY_PATH: '/certs/client.key',
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/certs/ca.pem',
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      }).tls,
    ).toEqual({
      clientCertPath: '/certs/client.pem',
      clientKeyPath: '/certs/client.key',
      serverCaCertPath: '/certs/ca.pem',
      serverName: 'temporal.internal',
    });

    expect(connectionSettings({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }).tls).toBe(false);
  });

  it('names the variable that is wrong', () => {
    expect(() => connectionSettings({ TEMPORAL_TLS: 'maybe' })).toThrow('TEMPORAL_TLS: expected true or false, got "maybe"');
    expect(() => connectionSettings({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem' })).toThrow(
      /TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH must be set together/,
    );
  });

  it('fails to connect with a message naming an unreadable TLS file', async () => {
    const settings = connectionSettings({
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(tmp, 'missing-ca.pem'),
    });
    await expect(connectClient(settings)).rejects.toThrow(/TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read .*missing-ca\.pem/);
  });
});

describe('uiUrlFor', () => {
  it('maps a dev server address to its UI (gRPC port + 1000)', () => {
    expect(uiUrlFor('localhost:7233', 'default', 'wf-1', {})).toBe(
      'http://localhost:8233/namespaces/default/workflows/wf-1',
    );
    expect(uiUrlFor('127.0.0.1:7400', 'default', undefined, {})).toBe('http://127.0.0.1:8400/namespaces/default/workflows');
  });

  it('escapes child workflow ids and honours COHORT_UI_URL', () => {
    expect(uiUrlFor('localhost:7233', 'default', 'session-1/researcher-1', { COHORT_UI_URL: 'https://ui.example.com/' })).toBe(
      'https://ui.example.com/namespaces/default/workflows/session-1%2Fresearcher-1',
    );
    expect(uiUrlFor('my-ns.abcde.tmprl.cloud:7233', 'my-ns.abcde', 'wf', {})).toBe(
      'https://cloud.temporal.io/namespaces/my-ns.abcde/workflows/wf',
    );
  });
});
