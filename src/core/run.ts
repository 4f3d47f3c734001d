export const runStatuses = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof runStatuses)[number];

/** What a call to a tool that is not callable does: fail the run, or give the model a denied result. */
export const deniedToolStrategies = ['FAIL_RUN', 'RETURN_DENIED_RESULT'] as const;
export type DeniedToolStrategy = (typeof deniedToolStrategies)[number];
