import type { ValidationIssue } from './json-schema.js';
import type { DecisionRecord } from './tool-call.js';
import type { BuiltInToolError } from './tool-error-codes.js';
import type { ToolError, ToolResult } from './tool-result.js';

/** Results the runtime writes on the model's behalf: every call ends with something the model can read. */
export function errorResult(callId: string, error: ToolError, structured: unknown = null): ToolResult {
  return {
    callId,
    content: [{ type: 'text', text: error.message }],
    structured: structured ?? { error: { kind: error.kind, code: error.code } },
    isError: true,
    resourceRefs: [],
    usage: null,
  };
}

/** A person's denial: its text, and who said no, why and what they told the model as structured content. */
export function denialResult(callId: string, error: ToolError, decision: DecisionRecord): ToolResult {
  return errorResult(callId, error, {
    error: { kind: error.kind, code: error.code },
    denial: {
      by: decision.decidedBy,
      reason: decision.reason,
      feedback: decision.feedback ?? null,
      ...(decision.repeatOf ? { repeatOf: decision.repeatOf } : {}),
    },
  });
}

export const policyDenied = (name: string, reason: string): BuiltInToolError<'POLICY_DENIED'> => ({
  kind: 'POLICY_DENIED',
  code: 'tool_not_available',
  message: `The tool ${name} is not available to you: ${reason}. Do not call it again; continue without it.`,
});

export const unknownTool = (name: string): BuiltInToolError<'POLICY_DENIED'> => ({
  kind: 'POLICY_DENIED',
  code: 'unknown_tool',
  message: `There is no tool named ${name}. Use only the tools you were given.`,
});

export function invalidArguments(name: string, issues: ValidationIssue[]): BuiltInToolError<'RECOVERABLE'> {
  const lines = issues.map((i) => `- ${i.path}: ${i.message}`).join('\n');
  return {
    kind: 'RECOVERABLE',
    code: 'invalid_arguments',
    message: `The arguments for ${name} do not match its input schema:\n${lines}\nFix them and call the tool again.`,
  };
}

export const argumentsTooLarge = (
  name: string,
  bytes: number,
  limit: number,
): BuiltInToolError<'RECOVERABLE'> => ({
  kind: 'RECOVERABLE',
  code: 'invalid_arguments',
  message: `The arguments for ${name} are ${bytes} bytes of JSON; at most ${limit} are accepted. Send less and call the tool again.`,
});

export const budgetExhausted = (name: string): BuiltInToolError<'RECOVERABLE'> => ({
  kind: 'RECOVERABLE',
  code: 'budget_exhausted',
  message: `The call budget for ${name} in this run is used up. Continue without calling it again.`,
});

/** With feedback, the person's words are the answer: "Denied by <person>: <feedback>". */
export const approvalDenied = (
  name: string,
  by: string,
  reason: string | null,
  feedback: string | null = null,
): BuiltInToolError<'POLICY_DENIED'> => ({
  kind: 'POLICY_DENIED',
  code: 'approval_denied',
  message: feedback
    ? `Denied by ${by}: ${feedback}`
    : `A person (${by}) denied the call to ${name}${reason ? `: ${reason}` : ''}. Do not retry it unchanged.`,
});

/** Never worded as a denial: nobody said no, so the model may ask again. */
export const approvalExpired = (name: string): BuiltInToolError<'RECOVERABLE'> => ({
  kind: 'RECOVERABLE',
  code: 'approval_expired',
  message: `No one decided in time on the call to ${name}, so it did not run; you may ask again.`,
});

export const callCancelled = (name: string): BuiltInToolError<'RECOVERABLE'> => ({
  kind: 'RECOVERABLE',
  code: 'cancelled',
  message: `The call to ${name} was cancelled before it finished; the run was stopped.`,
});

export const callTimedOut = (name: string, ms: number): BuiltInToolError<'RECOVERABLE'> => ({
  kind: 'RECOVERABLE',
  code: 'timeout',
  message: `The call to ${name} did not finish within ${ms} ms and was abandoned. Try a smaller request or continue without it.`,
});

/** Never worded as a denial: the call may have partly run. */
export const callInterrupted = (name: string): BuiltInToolError<'SYSTEM_FAILURE'> => ({
  kind: 'SYSTEM_FAILURE',
  code: 'interrupted',
  message: `The call to ${name} was interrupted: the server running it stopped before it finished, and it may have partly run.`,
});

export const noExecutor = (name: string): BuiltInToolError<'RECOVERABLE'> => ({
  kind: 'RECOVERABLE',
  code: 'tool_unavailable',
  message: `The tool ${name} cannot be run right now (no executor is available for it).`,
});

/** A tool policy allows that cannot run now: refused before it is queued or dispatched. */
export const toolCannotRun = (
  name: string,
  code: 'tool_unavailable' | 'mcp_not_connected' | 'extension_not_connected',
  reason: string,
): BuiltInToolError<'RECOVERABLE'> => ({
  kind: 'RECOVERABLE',
  code,
  message: `The tool ${name} cannot run now: ${reason}. Continue without it or try again later.`,
});
