/**
 * Connection settings read the Temporal way (the same environment variables the `temporal`
 * CLI and Temporal Cloud docs use), so a local dev server, a self-hosted cluster and Temporal
 * Cloud all work without Cohort-specific configuration.
 */
import { readFileSync } from 'node:fs';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { clientTracingInterceptors } from '../tracing';

export const DEFAULT_ADDRESS = 'localhost:7233';
export const DEFAULT_NAMESPACE = 'default';

/** TLS files and options; paths are read when connecting, so settings stay printable. */
export interface TlsSettings {
  clientCertPath?: string;
  clientKeyPath?: string;
  serverCaCertPath?: string;
  serverName?: string;
}

export interface ConnectionSettings {
  /** `host:port` of the Temporal frontend. */
  address: string;
  namespace: string;
  apiKey?: string;
  /** `true` = TLS with system roots; an object = TLS with these files; `false` = plain text. */
  tls?: boolean | TlsSettings;
}

/**
 * Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS and the
 * TEMPORAL_TLS_* file variables.
 *
 * @example
 * const settings = connectionSettings({ TEMPORAL_ADDRESS: 'localhost:7233' });
 * // settings.namespace === 'default'
 */
export function connectionSettings(env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const settings: ConnectionSettings = {
    address: nonEmpty(env.TEMPORAL_ADDRESS) ?? DEFAULT_ADDRESS,
    namespace: nonEmpty(env.TEMPORAL_NAMESPACE) ?? DEFAULT_NAMESPACE,
  };
  const apiKey = nonEmpty(env.TEMPORAL_API_KEY);
  if (apiKey) settings.apiKey = apiKey;

  const files: TlsSettings = {};
  const cert = nonEmpty(env.TEMPORAL_TLS_CLIENT_CERT_PATH);
  const key = nonEmpty(env.TEMPORAL_TLS_CLIENT_KEY_PATH);
  const ca = nonEmpty(env.TEMPORAL_TLS_SERVER_CA_CERT_PATH);
  const serverName = nonEmpty(env.TEMPORAL_TLS_SERVER_NAME);
  if (cert) files.clientCertPath = cert;
  if (key) files.clientKeyPath = key;
  if (ca) files.serverCaCertPath = ca;
  if (serverName) files.serverName = serverName;
  if (Boolean(cert) !== Boolean(key)) {
    throw new Error(
      'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH must be set together (mTLS needs both)',
    );
  }

  const tlsFlag = parseBool('TEMPORAL_TLS', env.TEMPORAL_TLS);
  if (Object.keys(files).length > 0) {
    if (tlsFlag === false) {
      throw new Error('TEMPORAL_TLS=false contradicts the TEMPORAL_TLS_* file settings that are also set');
    }
    settings.tls = files;
  } else if (tlsFlag !== undefined) {
    // An explicit false matters: with an API key the SDK would otherwise turn TLS on.
    settings.tls = tlsFlag;
  }
  return settings;
}

/** Connects a client (grpc-js) for starting, signalling and querying workflows. */
export async function connectClient(
  settings: ConnectionSettings,
  opts: { connectTimeoutMs?: number } = {},
): Promise<{ connection: Connection; client: Client }> {
  const connection = await Connection.connect({
    address: settings.address,
    tls: tlsConfig(settings.tls),
    apiKey: settings.apiKey,
    ...(opts.connectTimeoutMs ? { connectTimeout: opts.connectTimeoutMs } : {}),
  });
  const interceptors = clientTracingInterceptors();
  const client = new Client({ connection, namespace: settings.namespace, ...(interceptors ? { interceptors } : {}) });
  return { connection, client };
}

/** Connects the native (Rust core) connection a Worker needs. */
export async function connectWorkerConnection(settings: ConnectionSettings): Promise<NativeConnection> {
  return NativeConnection.connect({
    address: settings.address,
    tls: tlsConfig(settings.tls),
    apiKey: settings.apiKey,
  });
}

/**
 * True when a Temporal frontend answers at the address and knows the namespace. Any failure
 * (refused, TLS, auth, unknown namespace, timeout) is `false`; it never waits past the timeout.
 */
export async function isServerReachable(settings: ConnectionSettings, timeoutMs = 2000): Promise<boolean> {
  let connection: Connection | undefined;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const attempt = (async (): Promise<boolean> => {
    connection = await Connection.connect({
      address: settings.address,
      tls: tlsConfig(settings.tls),
      apiKey: settings.apiKey,
      connectTimeout: timeoutMs,
    });
    await connection.withDeadline(Date.now() + timeoutMs, () =>
      connection!.workflowService.describeNamespace({ namespace: settings.namespace }),
    );
    return true;
  })().catch(() => false);
  try {
    return await Promise.race([attempt, timedOut]);
  } finally {
    clearTimeout(timer);
    // Close whatever got opened, even if the attempt finishes after the timeout.
    void attempt.then(() => connection?.close().catch(() => undefined));
  }
}

/**
 * The Temporal UI address for a namespace or one workflow. A dev server serves its UI on the
 * gRPC port + 1000 (7233 → 8233); Temporal Cloud addresses map to cloud.temporal.io.
 * `COHORT_UI_URL` (e.g. `https://temporal.example.com`) overrides the base.
 *
 * @example
 * uiUrlFor('localhost:7233', 'default', 'wf-1'); // 'http://localhost:8233/namespaces/default/workflows/wf-1'
 */
export function uiUrlFor(
  address: string,
  namespace: string,
  workflowId?: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const base = nonEmpty(env.COHORT_UI_URL)?.replace(/\/+$/, '') ?? uiBaseFor(address);
  const path = `/namespaces/${encodeURIComponent(namespace)}/workflows`;
  return workflowId === undefined ? `${base}${path}` : `${base}${path}/${encodeURIComponent(workflowId)}`;
}

function uiBaseFor(address: string): string {
  const { host, port } = splitAddress(address);
  if (host.endsWith('.tmprl.cloud') || host.endsWith('.api.temporal.io')) return 'https://cloud.temporal.io';
  const uiPort = (port ?? 7233) + 1000;
  return `http://${host}:${uiPort}`;
}

function splitAddress(address: string): { host: string; port?: number } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(address.trim());
  if (!match) return { host: address };
  return { host: match[1]!, port: match[2] === undefined ? undefined : Number(match[2]) };
}

function tlsConfig(tls: ConnectionSettings['tls']): TLSConfig | boolean | undefined {
  if (tls === undefined || typeof tls === 'boolean') return tls;
  const config: TLSConfig = {};
  if (tls.serverName) config.serverNameOverride = tls.serverName;
  if (tls.serverCaCertPath) config.serverRootCACertificate = readTlsFile('TEMPORAL_TLS_SERVER_CA_CERT_PATH', tls.serverCaCertPath);
  if (tls.clientCertPath && tls.clientKeyPath) {
    config.clientCertPair = {
      crt: readTlsFile('TEMPORAL_TLS_CLIENT_CERT_PATH', tls.clientCertPath),
      key: readTlsFile('TEMPORAL_TLS_CLIENT_KEY_PATH', tls.clientKeyPath),
    };
  }
  return config;
}

function readTlsFile(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`${variable}: cannot read ${path}: ${(err as Error).message}`);
  }
}

function parseBool(variable: string, value: string | undefined): boolean | undefined {
  const v = nonEmpty(value)?.toLowerCase();
  if (v === undefined) return undefined;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new Error(`${variable}: expected true or false, got "${value}"`);
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}
