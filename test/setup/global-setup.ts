/**
 * Starts one Temporal dev server for the whole jest run (headless, free ports, in memory) and
 * publishes it as TEMPORAL_TEST_ADDRESS. With TEMPORAL_TEST_ADDRESS already set, that server
 * is reused instead (it only gets Cohort's search attributes added).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient } from '../../src/client/connection';
import { registerSearchAttributes, startDevServer } from '../../src/client/devserver';
import { TEST_NAMESPACE, setGlobalTestServer } from './server-handle';

export default async function globalSetup(): Promise<void> {
  const existing = process.env.TEMPORAL_TEST_ADDRESS;
  if (existing) {
    const { connection, client } = await connectClient({ address: existing, namespace: TEST_NAMESPACE });
    try {
      await registerSearchAttributes(client, TEST_NAMESPACE);
    } finally {
      await connection.close();
    }
    return;
  }
  const logFile = join(mkdtempSync(join(tmpdir(), 'cohort-jest-')), 'temporal.log');
  const server = await startDevServer({
    headless: true,
    logFile,
    namespace: TEST_NAMESPACE,
    log: (line) => process.stderr.write(`[temporal] ${line}\n`),
  });
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  setGlobalTestServer(server);
}
