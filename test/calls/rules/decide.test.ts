import { describe, expect, it } from 'vitest';
import {
  type CallDecision,
  type CallDecisionInput,
  decideCall,
  type PriorDenial,
  type Refusal,
} from '../../../src/calls/rules/decide.js';
import {
  approvalDenied,
  budgetExhausted,
  invalidArguments,
  policyDenied,
  toolCannotRun,
  unknownTool,
} from '../../../src/core/call-results.js';
import type { EffectiveTool } from '../../../src/core/policy.js';
import type { ToolError } from '../../../src/core/tool-result.js';
import { normalizeAnnotations, normalizeBudget, type ToolSpec } from '../../../src/core/tool-spec.js';

const spec: ToolSpec = {
  name: 'notes.write',
  title: 'Write a note',
  description: 'Writes a note',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  outputSchema: null,
  annotations: normalizeAnnotations({ readOnly: false, destructive: false, openWorld: false }),
  visibility: 'MODEL',
  permission: 'ALWAYS_ALLOW',
  budget: normalizeBudget(null),
  source: 'BUILT_IN',
  enabled: true,
};

const allowed = 'allowed by PROFILE rule r1 (ALLOW "*")';
const denied = 'denied by USER rule r2 (DENY "notes.*")';
const asked = 'approval required by USER rule r3 (ASK "notes.write")';

function view(over: Partial<EffectiveTool> = {}): EffectiveTool {
  return {
    tool: spec,
    visible: true,
    callable: true,
    permitted: true,
    unavailable: null,
    approvalRequired: false,
    reason: allowed,
    budget: normalizeBudget(null),
    remainingCalls: null,
    conditional: false,
    decidingRule: null,
    decidingConditions: [],
    ...over,
  };
}

const deniedView = view({ visible: false, callable: false, permitted: false, reason: denied });
const offline = 'its MCP server web is not connected to any server process';
const offlineView = view({
  visible: false,
  callable: false,
  unavailable: { code: 'mcp_not_connected', reason: offline },
  reason: `cannot run now: ${offline} (${allowed})`,
});
const askingView = (approvalTimeoutMs: number | null = null) =>
  view({
    approvalRequired: true,
    reason: asked,
    budget: { ...normalizeBudget(null), approvalTimeoutMs },
  });
const issue = { path: '/text', message: 'must be string' };
const now = new Date('2025-03-01T12:00:00.000Z');

const base: CallDecisionInput = {
  name: 'notes.write',
  spec,
  view: view(),
  issues: [],
  deniedToolStrategy: 'RETURN_DENIED_RESULT',
  now,
};

function violation(reason: string, strategy: CallDecisionInput['deniedToolStrategy']) {
  return { type: 'policy_violation' as const, payload: { tool: 'notes.write', reason, strategy } };
}

function refused(
  outcome: Refusal,
  error: ToolError,
  over: { violation?: ReturnType<typeof violation>; structured?: unknown; failRun?: boolean } = {},
): CallDecision {
  return {
    outcome,
    status: 'FAILED',
    error,
    structured: over.structured ?? null,
    events: [...(over.violation ? [over.violation] : []), { type: 'tool_call_failed', payload: { error } }],
    failRun: over.failRun ?? false,
  };
}

const accepted: CallDecision = {
  outcome: 'ACCEPTED',
  status: 'REQUESTED',
  countsAgainstBudget: true,
  events: [],
};

function held(expiresAt: Date | null): CallDecision {
  return {
    outcome: 'AWAITING_APPROVAL',
    status: 'AWAITING_APPROVAL',
    countsAgainstBudget: true,
    expiresAt,
    events: [
      {
        type: 'tool_call_awaiting_approval',
        payload: { reason: asked, expiresAt: expiresAt?.toISOString() ?? null },
      },
    ],
  };
}

/** A person denied an identical call earlier in the run; `repeatOf` when that call was itself a repeat. */
function prior(repeatOf: string | null = null): PriorDenial {
  return {
    callId: 'call-2',
    decision: {
      approved: false,
      decidedBy: 'approver:alice',
      reason: 'not now',
      decidedAt: '2025-03-01T11:00:00.000Z',
      argumentsHash: 'h1',
      feedback: 'write under output/drafts instead',
      allowRetry: false,
      repeatOf,
    },
    error: approvalDenied('notes.write', 'approver:alice', 'not now', 'write under output/drafts instead'),
  };
}

function repeatRefused(decidedOn: string): CallDecision {
  const error = approvalDenied(
    'notes.write',
    'approver:alice',
    'not now',
    'write under output/drafts instead',
  );
  return {
    outcome: 'REPEAT_DENIED',
    status: 'DENIED',
    error,
    decision: { ...prior().decision, repeatOf: decidedOn },
    policyReason: `denied without asking again: the identical call ${decidedOn} was denied by approver:alice at 2025-03-01T11:00:00.000Z`,
    events: [
      {
        type: 'tool_call_denied',
        actor: 'system',
        payload: {
          reason: 'not now',
          repeatOf: decidedOn,
          decidedBy: 'approver:alice',
          decidedAt: '2025-03-01T11:00:00.000Z',
          argumentsHash: 'h1',
        },
      },
    ],
  };
}

/** A RUN grant of approver:bob covering the call. */
const grant = { grantId: 'grant-1', grantedBy: 'approver:bob', argumentsHash: 'h2' };

const granted: CallDecision = {
  outcome: 'GRANTED',
  status: 'APPROVED',
  countsAgainstBudget: true,
  decision: {
    approved: true,
    decidedBy: 'approver:bob',
    reason: 'approved without asking by RUN grant grant-1 of approver:bob',
    decidedAt: now.toISOString(),
    argumentsHash: 'h2',
  },
  policyReason: `${asked}; approved without asking by RUN grant grant-1 of approver:bob`,
  events: [{ type: 'tool_call_approved', actor: 'system', payload: { grantId: 'grant-1' } }],
};

interface Case {
  name: string;
  input: Partial<CallDecisionInput>;
  expect: CallDecision;
}

const cases: Case[] = [
  {
    name: 'a name no tool has is refused as unknown_tool and reported as a policy violation',
    input: { spec: null, view: null },
    expect: refused('UNKNOWN_TOOL', unknownTool('notes.write'), {
      violation: violation('unknown tool', 'RETURN_DENIED_RESULT'),
    }),
  },
  {
    name: 'an unknown tool fails the run under FAIL_RUN',
    input: { spec: null, view: null, deniedToolStrategy: 'FAIL_RUN' },
    expect: refused('UNKNOWN_TOOL', unknownTool('notes.write'), {
      violation: violation('unknown tool', 'FAIL_RUN'),
      failRun: true,
    }),
  },
  {
    name: 'unknown beats every later rung: arguments are not looked at',
    input: { spec: null, view: null, issues: [issue] },
    expect: refused('UNKNOWN_TOOL', unknownTool('notes.write'), {
      violation: violation('unknown tool', 'RETURN_DENIED_RESULT'),
    }),
  },
  {
    name: 'a tool policy denies is refused as tool_not_available, naming the deciding rule',
    input: { view: deniedView },
    expect: refused('POLICY_DENIED', policyDenied('notes.write', denied), {
      violation: violation(denied, 'RETURN_DENIED_RESULT'),
    }),
  },
  {
    name: 'a denied tool fails the run under FAIL_RUN',
    input: { view: deniedView, deniedToolStrategy: 'FAIL_RUN' },
    expect: refused('POLICY_DENIED', policyDenied('notes.write', denied), {
      violation: violation(denied, 'FAIL_RUN'),
      failRun: true,
    }),
  },
  {
    name: 'denial beats invalid arguments',
    input: { view: deniedView, issues: [issue] },
    expect: refused('POLICY_DENIED', policyDenied('notes.write', denied), {
      violation: violation(denied, 'RETURN_DENIED_RESULT'),
    }),
  },
  {
    name: 'denial beats an exhausted budget',
    input: { view: { ...deniedView, remainingCalls: 0 } },
    expect: refused('POLICY_DENIED', policyDenied('notes.write', denied), {
      violation: violation(denied, 'RETURN_DENIED_RESULT'),
    }),
  },
  {
    name: 'arguments that fail the schema are a recoverable invalid_arguments result carrying the issues',
    input: { issues: [issue] },
    expect: refused('INVALID_ARGUMENTS', invalidArguments('notes.write', [issue]), {
      structured: { issues: [issue] },
    }),
  },
  {
    name: 'invalid arguments are not a policy violation: they never fail the run, even under FAIL_RUN',
    input: { issues: [issue], deniedToolStrategy: 'FAIL_RUN' },
    expect: refused('INVALID_ARGUMENTS', invalidArguments('notes.write', [issue]), {
      structured: { issues: [issue] },
    }),
  },
  {
    name: 'invalid arguments beat an exhausted budget',
    input: { issues: [issue], view: view({ remainingCalls: 0 }) },
    expect: refused('INVALID_ARGUMENTS', invalidArguments('notes.write', [issue]), {
      structured: { issues: [issue] },
    }),
  },
  {
    name: 'invalid arguments beat approval: nobody is asked about a call that cannot run',
    input: { issues: [issue], view: askingView(60_000) },
    expect: refused('INVALID_ARGUMENTS', invalidArguments('notes.write', [issue]), {
      structured: { issues: [issue] },
    }),
  },
  {
    name: 'a used-up budget is a recoverable budget_exhausted result',
    input: { view: view({ remainingCalls: 0 }) },
    expect: refused('BUDGET_EXHAUSTED', budgetExhausted('notes.write')),
  },
  {
    name: 'a used-up budget never fails the run, even under FAIL_RUN',
    input: { view: view({ remainingCalls: 0 }), deniedToolStrategy: 'FAIL_RUN' },
    expect: refused('BUDGET_EXHAUSTED', budgetExhausted('notes.write')),
  },
  {
    name: 'a used-up budget beats approval',
    input: { view: { ...askingView(60_000), remainingCalls: 0 } },
    expect: refused('BUDGET_EXHAUSTED', budgetExhausted('notes.write')),
  },
  {
    name: 'a budget reported as used up by the policy view is budget_exhausted, not a violation',
    input: {
      view: view({
        visible: false,
        callable: false,
        remainingCalls: 0,
        unavailable: { code: 'budget_exhausted', reason: 'call budget used up' },
      }),
      deniedToolStrategy: 'FAIL_RUN',
    },
    expect: refused('BUDGET_EXHAUSTED', budgetExhausted('notes.write')),
  },
  {
    name: 'a permitted tool that cannot run now fails recoverably under its own code, never as a violation',
    input: { view: offlineView, deniedToolStrategy: 'FAIL_RUN' },
    expect: refused('UNAVAILABLE', toolCannotRun('notes.write', 'mcp_not_connected', offline)),
  },
  {
    name: 'a tool without an executor is tool_unavailable',
    input: {
      view: view({ visible: false, callable: false, unavailable: { code: 'tool_unavailable', reason: 'x' } }),
    },
    expect: refused('UNAVAILABLE', toolCannotRun('notes.write', 'tool_unavailable', 'x')),
  },
  {
    name: 'invalid arguments beat a tool that cannot run now',
    input: { view: offlineView, issues: [issue] },
    expect: refused('INVALID_ARGUMENTS', invalidArguments('notes.write', [issue]), {
      structured: { issues: [issue] },
    }),
  },
  {
    name: 'a tool that cannot run now is refused before anybody is asked to approve it',
    input: { view: { ...askingView(60_000), unavailable: { code: 'mcp_not_connected', reason: offline } } },
    expect: refused('UNAVAILABLE', toolCannotRun('notes.write', 'mcp_not_connected', offline)),
  },
  {
    name: 'a call that needs approval is held until now plus the approval timeout',
    input: { view: askingView(60_000) },
    expect: held(new Date('2025-03-01T12:01:00.000Z')),
  },
  {
    name: 'without an approval timeout a held call never expires',
    input: { view: askingView(null) },
    expect: held(null),
  },
  {
    name: 'a call with one call of budget left is held for approval, not refused',
    input: { view: { ...askingView(null), remainingCalls: 1 } },
    expect: held(null),
  },
  {
    name: 'a call a person already denied identically is refused with that decision, nobody is asked',
    input: { view: askingView(60_000), priorDenial: prior() },
    expect: repeatRefused('call-2'),
  },
  {
    name: 'a repeat of a refused repeat names the call the person decided on',
    input: { view: askingView(60_000), priorDenial: prior('call-1') },
    expect: repeatRefused('call-1'),
  },
  {
    name: 'an earlier denial does not touch a call that needs no approval',
    input: { priorDenial: prior() },
    expect: accepted,
  },
  {
    name: 'invalid arguments beat an earlier denial',
    input: { issues: [issue], view: askingView(60_000), priorDenial: prior() },
    expect: refused('INVALID_ARGUMENTS', invalidArguments('notes.write', [issue]), {
      structured: { issues: [issue] },
    }),
  },
  {
    name: 'a RUN grant approves a call that needs approval in the name of its person, naming the grant',
    input: { view: askingView(60_000), standingGrant: grant },
    expect: granted,
  },
  {
    name: 'an identical call a person denied beats a RUN grant',
    input: { view: askingView(60_000), priorDenial: prior(), standingGrant: grant },
    expect: repeatRefused('call-2'),
  },
  {
    name: 'a policy denial beats a RUN grant',
    input: { view: deniedView, standingGrant: grant },
    expect: refused('POLICY_DENIED', policyDenied('notes.write', denied), {
      violation: violation(denied, 'RETURN_DENIED_RESULT'),
    }),
  },
  {
    name: 'invalid arguments beat a RUN grant',
    input: { issues: [issue], view: askingView(60_000), standingGrant: grant },
    expect: refused('INVALID_ARGUMENTS', invalidArguments('notes.write', [issue]), {
      structured: { issues: [issue] },
    }),
  },
  {
    name: 'a RUN grant does not touch a call that needs no approval',
    input: { standingGrant: grant },
    expect: accepted,
  },
  {
    name: 'an allowed call that needs no approval is accepted to run at once',
    input: {},
    expect: accepted,
  },
  {
    name: 'a call with one call of budget left is accepted',
    input: { view: view({ remainingCalls: 1 }) },
    expect: accepted,
  },
  {
    name: 'FAIL_RUN does not touch a call that is allowed',
    input: { deniedToolStrategy: 'FAIL_RUN' },
    expect: accepted,
  },
];

describe('decideCall ladder', () => {
  it.each(cases)('$name', (c) => {
    expect(decideCall({ ...base, ...c.input })).toEqual(c.expect);
  });
});
