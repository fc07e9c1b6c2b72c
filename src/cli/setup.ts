/** `cohort setup`: prepares a real (non-dev) Temporal namespace for Cohort. */
import { SEARCH_ATTRIBUTES, registerSearchAttributes } from '../client/devserver';
import { withClient } from './connect';

export async function setupCommand(): Promise<number> {
  return withClient(async ({ settings, client }) => {
    await registerSearchAttributes(client, settings.namespace);
    const names = Object.entries(SEARCH_ATTRIBUTES).map(([k, v]) => `${k} (${v})`).join(', ');
    process.stdout.write(`Search attributes registered in namespace ${settings.namespace}: ${names}\n`);
    return 0;
  });
}
