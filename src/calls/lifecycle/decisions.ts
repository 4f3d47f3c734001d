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
import { mayRead, readableCall } from './readable-call.js';

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
  const input = parseInput(decideInputSchema, raw);
  const onDecided = (tx: Tx, call: ToolCallRow) => ctx.ports.decided(tx, call, input, principal);
  const edited = input.editedArguments;
  if (edited) {
    // Whether these are other arguments is known from the call: read first, before anything is recorded.
    const found = await readableCall(ctx.db, callId, principal);
    if (!found) throw notFound(`no tool call ${callId}`);
    const current = found.call;
    if (hashArguments(edited) !== current.argumentsHash) {
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
  }
  const grant = grantRequestOf(input);
  let grantedIn: Tx | null = null;
  const decided = await recordApproval(ctx.db, {
    callId,
    approved,
    input,
    principal,
    // A call of a run outside the decider's users does not exist for it: refused before anything is recorded.
    check: (current, run) => {
      if (!mayRead(principal, run)) throw notFound(`no tool call ${callId}`);
      if (!approved) return;
      assertMayApprove(principal, run.userId, current.selfApprovalForbidden);
      // Refused on every approval of a quorum call, not only the one that completes it.
      if (current.approvalsRequired > 1 && grant)
        throw badInput(
          `call ${current.id} needs ${current.approvalsRequired} approvals, so one person's approval grants nothing beyond it: use scope ONCE`,
        );
    },
    afterApproval: grant
      ? async (tx, row) => {
          await ctx.ports.grants.create(tx, row, grant, principal);
          grantedIn = tx;
        }
      : undefined,
    onDecided,
    inline: (current) => inlineApproval(ctx, current),
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
    startedEvent: (started) => inline.startedEvent(started),
    run: (tx, run, started, write) => inline.runIn(tx, run, started, spec, write),
  };
}
