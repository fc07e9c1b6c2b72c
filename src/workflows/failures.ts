import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TemporalFailure } from '@temporalio/workflow';

/** The most useful message in a failure chain (an activity's ApplicationFailure, usually). */
export function describeFailure(err: unknown): string {
  if (err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) {
    return err.cause ? describeFailure(err.cause) : err.message;
  }
  if (err instanceof ApplicationFailure) return err.message;
  if (err instanceof TemporalFailure) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The ApplicationFailure type at the root of a failure chain, if any. */
export function failureType(err: unknown): string {
  if ((err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) && err.cause) return failureType(err.cause);
  if (err instanceof ApplicationFailure && err.type) return err.type;
  return 'error';
}
