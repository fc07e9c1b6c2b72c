/**
 * Finding, building and running a local Temporal dev server (`temporal server start-dev`).
 *
 * Node-only: used by the CLI (`cohort dev`, `cohort run` with no server) and by the test setup.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { Client } from '@temporalio/client';
import { DEFAULT_NAMESPACE, isServerReachable } from './connection';

/** v1.5.1 is the newest CLI tag whose go.mod has no `replace` directive, so `go install` works. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

export type SearchAttributeKind = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime';

/** Custom search attributes Cohort sets on its workflows (visible and filterable in the UI). */
export const SEARCH_ATTRIBUTES: Record<string, SearchAttributeKind> = {
  CohortTeam: 'Keyword',
  CohortStatus: 'Keyword',
  CohortAgent: 'Keyword',
  CohortBatch: 'Keyword',
};

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const TAIL_LINES = 40;

type Log = (line: string) => void;

/** Where a Go-built `temporal` binary is cached: `$XDG_CACHE_HOME/cohort/temporal-1.5.1/temporal`. */
export function cachedBinaryPath(): string {
  const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cacheHome, 'cohort', `temporal-${TEMPORAL_CLI_VERSION.replace(/^v/, '')}`, 'temporal');
}

/**
 * Finds a `temporal` CLI: `COHORT_TEMPORAL_BIN`, then `temporal` on PATH, then the cache, then
 * (unless `build: false`) builds it into the cache with `go install` when Go is present.
 * Throws an Error saying how to install it otherwise.
 */
export async function findTemporalBinary(opts: { build?: boolean; log?: Log } = {}): Promise<string> {
  const fromEnv = process.env.COHORT_TEMPORAL_BIN;
  if (fromEnv) {
    if (!isExecutableFile(fromEnv)) {
      throw new Error(`COHORT_TEMPORAL_BIN=${fromEnv} is not an executable file`);
    }
    return fromEnv;
  }
  const onPath = whichSync('temporal');
  if (onPath) return onPath;

  const cached = cachedBinaryPath();
  if (isExecutableFile(cached)) return cached;

  const go = whichSync('go') ?? (isExecutableFile('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (go && opts.build !== false) {
    await goInstallTemporal(go, dirname(cached), opts.log ?? (() => undefined));
    if (isExecutableFile(cached)) return cached;
    throw new Error(`go install finished but ${cached} is missing`);
  }
  throw new Error(
    [
      'No Temporal CLI found (needed for the local dev server). Install one of these ways:',
      '  - the Temporal CLI on your PATH: https://docs.temporal.io/cli#install (e.g. `brew install temporal`)',
      `  - with Go: GOBIN=${dirname(cached)} go install ${CLI_MODULE}@${TEMPORAL_CLI_VERSION}`,
      '  - or point COHORT_TEMPORAL_BIN at a temporal binary',
      'Or connect to an existing server with TEMPORAL_ADDRESS.',
    ].join('\n'),
  );
}

async function goInstallTemporal(go: string, gobin: string, log: Log): Promise<void> {
  mkdirSync(gobin, { recursive: true });
  log(
    `Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go into ${gobin}; this takes a few minutes the first time...`,
  );
  const started = Date.now();
  const tail = new OutputTail(TAIL_LINES);
  const child = spawn(go, ['install', `${CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
    env: { ...process.env, GOBIN: gobin },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => tail.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => tail.push(chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) {
    throw new Error(`go install ${CLI_MODULE}@${TEMPORAL_CLI_VERSION} failed (exit ${code}):\n${tail.text()}`);
  }
  log(`Built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)} s.`);
}

export interface DevServer {
  /** gRPC address, `127.0.0.1:<port>`. */
  address: string;
  /** Temporal UI for the namespace; empty when started headless. */
  uiUrl: string;
  namespace: string;
  pid: number;
  /** Where the server's output goes, when written to a file. */
  logFile?: string;
  /** SIGTERM, wait for exit, SIGKILL if it takes longer than 10 s. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartDevServerOptions {
  /** gRPC port; 0 or omitted = a free port. */
  port?: number;
  /** UI port; omitted = port + 1000 when `port` is given, else a free port. */
  uiPort?: number;
  /** SQLite file that keeps state across restarts; omitted = in memory. */
  dbFile?: string;
  headless?: boolean;
  namespace?: string;
  /** Progress lines (binary lookup, start-up); the server's own output goes to `logFile`. */
  log?: Log;
  logFile?: string;
  /** Let the server outlive this process (requires/creates a log file). */
  detached?: boolean;
  /** Extra `temporal server start-dev` arguments, e.g. `--dynamic-config-value K=V`. */
  extraArgs?: string[];
  /** Binary to run; default: {@link findTemporalBinary}. */
  binary?: string;
}

/**
 * Starts `temporal server start-dev` with Cohort's search attributes and waits until it answers.
 * Unless `detached`, the server is stopped when this process exits (even on SIGKILL, via a
 * small watchdog).
 */
export async function startDevServer(opts: StartDevServerOptions = {}): Promise<DevServer> {
  const log = opts.log ?? (() => undefined);
  const binary = opts.binary ?? (await findTemporalBinary({ log }));
  const namespace = opts.namespace ?? DEFAULT_NAMESPACE;
  const port = opts.port ? opts.port : await freePort();
  const headless = opts.headless ?? false;
  const uiPort = opts.uiPort ?? (opts.port ? opts.port + 1000 : await freePort());
  const host = '127.0.0.1';
  const address = `${host}:${port}`;
  // Otherwise a server already on the port would answer the readiness check for ours.
  if (opts.port) await assertPortFree(port, 'port');
  if (!headless && opts.uiPort) await assertPortFree(uiPort, 'uiPort');

  const args = ['server', 'start-dev', '--ip', host, '--port', String(port), '--log-level', 'warn'];
  args.push(...(headless ? ['--headless'] : ['--ui-port', String(uiPort)]));
  // "default" always exists; --namespace registers additional ones.
  if (namespace !== DEFAULT_NAMESPACE) args.push('--namespace', namespace);
  for (const [name, kind] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${kind}`);
  if (opts.dbFile) {
    mkdirSync(dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  args.push(...(opts.extraArgs ?? []));

  const detached = opts.detached ?? false;
  const logFile = opts.logFile ?? (detached ? join(tmpdir(), `cohort-temporal-${port}.log`) : undefined);
  const tail = new OutputTail(TAIL_LINES);
  let child: ChildProcess;
  if (logFile) {
    mkdirSync(dirname(logFile), { recursive: true });
    const fd = openSync(logFile, 'a');
    try {
      child = spawn(binary, args, { stdio: ['ignore', fd, fd], detached });
    } finally {
      closeSync(fd);
    }
  } else {
    child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on('data', (chunk: Buffer) => tail.push(chunk));
      unrefStream(stream);
    }
  }
  const outputTail = (): string => (logFile ? readTail(logFile, TAIL_LINES) : tail.text());

  let exitInfo: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = signal ? `killed by ${signal}` : `exit code ${code}`;
      resolve();
    });
    child.once('error', (err) => {
      exitInfo = `failed to start: ${err.message}`;
      resolve();
    });
  });
  if (child.pid === undefined) {
    await exited;
    throw new Error(`Could not start ${binary}: ${exitInfo ?? 'no pid'}`);
  }
  const pid = child.pid;
  child.unref();

  // Non-detached: stop the server when we exit normally ('exit') or die any other way (watchdog).
  const killOnExit = (): void => {
    if (exitInfo === undefined) child.kill('SIGTERM');
  };
  let watchdog: ChildProcess | undefined;
  if (!detached) {
    process.once('exit', killOnExit);
    watchdog = startWatchdog(process.pid, pid);
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (watchdog?.pid !== undefined && watchdog.exitCode === null) watchdog.kill('SIGKILL');
      if (exitInfo !== undefined) return;
      child.kill('SIGTERM');
      if (!(await within(exited, STOP_GRACE_MS))) {
        child.kill('SIGKILL');
        await within(exited, 5_000);
      }
    })();
    return stopping;
  };

  log(`Starting Temporal dev server at ${address}${logFile ? ` (log: ${logFile})` : ''}...`);
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (exitInfo !== undefined) {
      await stop();
      throw new Error(`Temporal dev server (${binary}) ${exitInfo} during start-up:\n${outputTail()}`);
    }
    if (await isServerReachable({ address, namespace }, 1_000)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `Temporal dev server did not answer at ${address} within ${STARTUP_TIMEOUT_MS / 1000} s. ` +
          `Last output:\n${outputTail()}`,
      );
    }
    await within(exited, 250);
  }

  const uiUrl = headless ? '' : `http://${host}:${uiPort}/namespaces/${encodeURIComponent(namespace)}/workflows`;
  log(`Temporal dev server ready at ${address}${uiUrl ? `, UI ${uiUrl}` : ''}`);
  return { address, uiUrl, namespace, pid, logFile, stop };
}

/**
 * Adds any of {@link SEARCH_ATTRIBUTES} the namespace lacks (for servers Cohort did not start,
 * e.g. `cohort setup` against a self-hosted cluster). Idempotent; a type clash is an error.
 */
export async function registerSearchAttributes(client: Client, namespace: string): Promise<void> {
  const operator = client.connection.operatorService;
  const existing = (await operator.listSearchAttributes({ namespace })).customAttributes ?? {};
  const missing: Record<string, IndexedValueType> = {};
  for (const [name, kind] of Object.entries(SEARCH_ATTRIBUTES)) {
    const have = existing[name];
    if (have === undefined || have === null) {
      missing[name] = INDEXED_VALUE_TYPES[kind];
    } else if (have !== INDEXED_VALUE_TYPES[kind]) {
      throw new Error(
        `Search attribute ${name} in namespace ${namespace} already exists with a different type (want ${kind})`,
      );
    }
  }
  if (Object.keys(missing).length === 0) return;
  try {
    await operator.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (err) {
    // Another process may have added them in between (ALREADY_EXISTS = gRPC code 6).
    if ((err as { code?: number }).code === 6) return;
    throw new Error(
      `Could not add search attributes ${Object.keys(missing).join(', ')} to namespace ${namespace}: ` +
        `${(err as Error).message} (on Temporal Cloud, add them with tcld or the Cloud UI)`,
    );
  }
}

type IndexedValueType = NonNullable<
  Parameters<Client['connection']['operatorService']['addSearchAttributes']>[0]['searchAttributes']
>[string];

// Values of temporal.api.enums.v1.IndexedValueType (the proto package is not a direct dependency).
const INDEXED_VALUE_TYPES: Record<SearchAttributeKind, IndexedValueType> = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
};

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not find a free port'))));
    });
  });
}

async function assertPortFree(port: number, option: string): Promise<void> {
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
  if (!free) {
    throw new Error(
      `Cannot start a Temporal dev server: ${option} ${port} on 127.0.0.1 is already in use ` +
        `(if a Temporal server runs there, point TEMPORAL_ADDRESS at it instead)`,
    );
  }
}

/**
 * A detached shell that SIGTERMs the server once the parent is gone, covering deaths that skip
 * 'exit' handlers (SIGKILL, uncaught signals). It ends by itself when the server ends first.
 */
function startWatchdog(parentPid: number, serverPid: number): ChildProcess {
  const script =
    'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; ' +
    'kill -0 "$1" 2>/dev/null || kill -TERM "$2" 2>/dev/null; exit 0';
  const watchdog = spawn('sh', ['-c', script, 'cohort-devserver-watchdog', String(parentPid), String(serverPid)], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return watchdog;
}

/** Resolves true if `promise` settles within `ms`, false otherwise (never rejects). */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function whichSync(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function unrefStream(stream: NodeJS.ReadableStream): void {
  (stream as NodeJS.ReadableStream & { unref?: () => void }).unref?.();
}

function readTail(file: string, lines: number): string {
  try {
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    try {
      const length = Math.min(size, 64 * 1024);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      return buffer.toString('utf8').split('\n').slice(-lines - 1).join('\n');
    } finally {
      closeSync(fd);
    }
  } catch {
    return `(no output: cannot read ${file})`;
  }
}

/** Keeps the last N lines of a process's output for error messages. */
class OutputTail {
  private lines: string[] = [];
  private partial = '';
  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const parts = (this.partial + chunk.toString('utf8')).split('\n');
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts);
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
  }

  text(): string {
    return [...this.lines, this.partial].filter((l) => l !== '').join('\n') || '(no output)';
  }
}
