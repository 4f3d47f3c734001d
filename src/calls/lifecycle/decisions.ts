import type { Principal } from '../../core/auth.js';
import { hashArguments } from '../../core/canonical-json.js';
import { badInput, notFound } from '../../core/errors.js';
import { grantRequestOf } from '../../core/grant.js';
import { parseInput } from '../../core/parse-input.js';
import type { Tx } from '../../db/tx.js';
import { assertMayApprove } from '../rules/quorum.js';
import type { ToolCallRow } from '../tables.js';
import { type DecideInput, decideInputSchema, type InlineApproval, recordApproval } from './approvals.js';
import { editCall } from './edits.js';
import type { LifecycleContext } from './ports.js';
import { readableCall } from './readable-call.js';

/**
 * A person's decision on a call: the input is parsed here, once, and everything after works on the
 * parsed form. An approval with other arguments becomes an edit (a new call replacing this one); a
 * grant the approval carries is saved in its transaction and settled after it; an approved call
 * starts at once in this process.
 */
export async function decide(
  ctx: LifecycleContext,
  callId: string,
  approved: boolean,
  raw: DecideInput,
  principal: Principal,
): Promise<ToolCallRow> {
  // A call of a run outside the decider's users does not exist for it: refused before anything is recorded.
  const found = await readableCall(ctx.db, callId, principal);
  if (!found) throw notFound(`no tool call ${callId}`);
  const { call: current, run } = found;
  const input = parseInput(decideInputSchema, raw);
  const edited = input.editedArguments;
  const onDecided = (tx: Tx, call: ToolCallRow) => ctx.ports.decided(tx, call, input, principal);
  if (edited && hashArguments(edited) !== current.argumentsHash) {
    if (!approved) throw badInput('editedArguments: only an approval edits the arguments');
    if (grantRequestOf(input)) throw badInput('scope: an edited call is approved ONCE');
    const deps = { db: ctx.db, runs: ctx.runs, registry: ctx.registry, policy: ctx.policy };
    const request = {
      editedArguments: edited,
      reason: input.reason ?? null,
      argumentsHash: input.argumentsHash,
      onDecided,
    };
    const { original, replacement } = await editCall(deps, current, request, principal);
    if (replacement.status === 'APPROVED') void ctx.ports.dispatch(replacement.id);
    return original;
  }
  const grant = grantRequestOf(input);
  if (approved) {
    assertMayApprove(principal, run.userId, current.selfApprovalForbidden);
    // Refused on every approval of a quorum call, not only the one that completes it.
    if (current.approvalsRequired > 1 && grant)
      throw badInput(
        `call ${current.id} needs ${current.approvalsRequired} approvals, so one person's approval grants nothing beyond it: use scope ONCE`,
      );
  }
  let grantedIn: Tx | null = null;
  const decided = await recordApproval(ctx.db, {
    current,
    approved,
    input,
    principal,
    afterApproval: grant
      ? async (tx, row) => {
          await ctx.ports.grants.create(tx, row, grant, principal);
          grantedIn = tx;
        }
      : undefined,
    onDecided,
    inline: approved ? await inlineApproval(ctx, current) : undefined,
  });
  if (grantedIn) await ctx.ports.grants.settle(grantedIn);
  if (decided.status === 'APPROVED') void ctx.ports.dispatch(callId);
  return decided;
}

/** How an approval runs the call in its own transaction, when the call's tool runs in one. */
async function inlineApproval(ctx: LifecycleContext, call: ToolCallRow): Promise<InlineApproval | undefined> {
  const inline = ctx.ports.inline;
  const spec = await ctx.registry.get(call.name);
  if (!spec || !inline.runsInTransaction(spec)) return undefined;
  return {
    lock: (tx) => ctx.runs.lock(tx, call.runId),
    startedEvent: (started) => inline.startedEvent(started),
    run: (tx, run, started, write) => inline.runIn(tx, run, started, spec, write),
  };
}
