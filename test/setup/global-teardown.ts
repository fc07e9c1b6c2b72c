import { takeGlobalTestServer } from './server-handle';

export default async function globalTeardown(): Promise<void> {
  await takeGlobalTestServer()?.stop();
}
