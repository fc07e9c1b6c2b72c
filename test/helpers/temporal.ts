/**
 * The one shared way tests reach Temporal: the dev server started by test/setup/global-setup.ts
 * (or the server named by TEMPORAL_TEST_ADDRESS). Connections are cached per test file and
 * closed after its last test, so jest exits cleanly.
 */
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { connectClient, connectWorkerConnection, type ConnectionSettings } from '../../src/client/connection';
import { TEST_NAMESPACE } from '../setup/server-handle';
import { installRuntime } from '../../src/telemetry';

// Workers in tests log warnings and errors only (INFO lines drown jest's report).
installRuntime({ logLevel: 'WARN' });

/** gRPC address of the test server. */
export function testAddress(): string {
  const address = process.env.TEMPORAL_TEST_ADDRESS;
  if (!address) {
    throw new Error('TEMPORAL_TEST_ADDRESS is not set: run tests through jest.config.js (its globalSetup starts a server)');
  }
  return address;
}

export function testNamespace(): string {
  return TEST_NAMESPACE;
}

export function testConnectionSettings(): ConnectionSettings {
  return { address: testAddress(), namespace: testNamespace() };
}

let clientPromise: Promise<{ connection: Connection; client: Client }> | undefined;
let nativePromise: Promise<NativeConnection> | undefined;

/** A client on the test server, shared by the tests of one file. */
export async function testClient(): Promise<Client> {
  clientPromise ??= connectClient(testConnectionSettings());
  return (await clientPromise).client;
}

/** A worker connection on the test server, shared by the workers of one file. */
export async function testWorkerConnection(): Promise<NativeConnection> {
  nativePromise ??= connectWorkerConnection(testConnectionSettings());
  return nativePromise;
}

/** A task queue (or id) no other test uses, so tests never pick up each other's tasks. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/** Closes the cached connections; registered below to run after each test file. */
export async function closeTestConnections(): Promise<void> {
  const [client, native] = [clientPromise, nativePromise];
  clientPromise = undefined;
  nativePromise = undefined;
  await Promise.all([
    client?.then(({ connection }) => connection.close()).catch(() => undefined),
    native?.then((connection) => connection.close()).catch(() => undefined),
  ]);
}

// Importing this module from a test file registers the cleanup for that file.
if (typeof afterAll === 'function') afterAll(closeTestConnections);
