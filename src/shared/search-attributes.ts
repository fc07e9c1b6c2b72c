/**
 * Cohort's search attributes (registered by `cohort dev` / `cohort setup`), so sessions can be
 * filtered in the Temporal UI and by `cohort ls`. Workflows set them only when the client found
 * them registered (`SessionOptions.searchAttributes`): upserting an unknown attribute would fail
 * the workflow task on a server where `cohort setup` never ran.
 */
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';

export const COHORT_TEAM = defineSearchAttributeKey('CohortTeam', SearchAttributeType.KEYWORD);
export const COHORT_STATUS = defineSearchAttributeKey('CohortStatus', SearchAttributeType.KEYWORD);
export const COHORT_AGENT = defineSearchAttributeKey('CohortAgent', SearchAttributeType.KEYWORD);
export const COHORT_BATCH = defineSearchAttributeKey('CohortBatch', SearchAttributeType.KEYWORD);
