/** The job states BullMQ keeps, as `fulfil jobs list --state` takes them. */
export const JOB_STATES = ['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'waiting-children'] as const;
