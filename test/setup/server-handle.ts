/**
 * globalSetup and globalTeardown run in jest's main process but as separately loaded modules,
 * so the running server is handed over through globalThis.
 */
import type { DevServer } from '../../src/client/devserver';

export const TEST_NAMESPACE = 'default';

const KEY = '__cohortTestTemporalServer';
type WithServer = typeof globalThis & { [KEY]?: DevServer };

export function setGlobalTestServer(server: DevServer): void {
  (globalThis as WithServer)[KEY] = server;
}

export function takeGlobalTestServer(): DevServer | undefined {
  const holder = globalThis as WithServer;
  const server = holder[KEY];
  delete holder[KEY];
  return server;
}
