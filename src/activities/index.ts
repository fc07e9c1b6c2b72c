import { createModelActivities, type ModelConfig } from './model';
import { createToolActivities } from './tools';

export type { ModelConfig } from './model';

export interface ActivityConfig {
  model: ModelConfig;
  /** The directory `read_file` may read from. */
  workDir: string;
}

/**
 * Every activity a Cohort worker registers. Workflows import only the `Activities` type, never
 * this module's code: activities do I/O and must stay out of the workflow sandbox.
 */
export function createActivities(config: ActivityConfig) {
  return { ...createModelActivities(config.model), ...createToolActivities({ workDir: config.workDir }) };
}

export type Activities = ReturnType<typeof createActivities>;
