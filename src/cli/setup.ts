/** `cohort setup`: prepares a real (non-dev) Temporal namespace for Cohort. */
import { connectClient, connectionSettings } from '../client/connection';
import { SEARCH_ATTRIBUTES, registerSearchAttributes } from '../client/devserver';
import { CliError } from './errors';

export async function setupCommand(): Promise<number> {
  const settings = connectionSettings();
  const { client, connection } = await connectClient(settings).catch((err: Error) => {
    throw new CliError(`cannot reach Temporal at ${settings.address}: ${err.message}`);
  });
  try {
    await registerSearchAttributes(client, settings.namespace);
    const names = Object.entries(SEARCH_ATTRIBUTES).map(([k, v]) => `${k} (${v})`).join(', ');
    process.stdout.write(`Search attributes registered in namespace ${settings.namespace}: ${names}\n`);
    return 0;
  } finally {
    await connection.close();
  }
}
