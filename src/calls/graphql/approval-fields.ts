import type { ArgumentsEdit } from '../../core/tool-call.js';
import { builder } from '../../graphql/builder.js';
import type { ToolCallRow } from '../tables.js';
import { ApprovalDecisionType, ApprovalRequestType, DecidingPersonType, ToolCallType } from './tool-call.js';

/** Approve with edits, quorum and the model turn a call came from (issue 14, items 1, 4 and 6). */

const ArgumentsEditType = builder.objectRef<ArgumentsEdit>('ArgumentsEdit').implement({
  description: 'What a person changed on a call before approving it (on the EDITED call).',
  fields: (t) => ({
    editedBy: t.exposeString('editedBy', { description: 'The actor who edited and approved.' }),
    person: t.field({
      type: DecidingPersonType,
      nullable: true,
      description: 'Who edited, as the IdP named them; null when the edit was made with an API token.',
      resolve: (e) => e.person ?? null,
    }),
    editedAt: t.field({
      description: 'When.',
      type: 'DateTime',
      resolve: (e) => new Date(e.editedAt),
    }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why, as the editor gave it.' }),
    diff: t.field({
      description:
        'An RFC 6902 JSON Patch from the original arguments to the edited ones (add, remove, replace).',
      type: 'JSON',
      resolve: (e) => e.diff,
    }),
  }),
});

const loadCall = (id: string | null | undefined, load: (id: string) => Promise<ToolCallRow | null>) =>
  id ? load(id) : null;

/** The approvals a call needs and has, on the call and on what an approval screen shows. */
function quorumFields(ref: typeof ToolCallType | typeof ApprovalRequestType) {
  builder.objectFields(ref, (t) => ({
    approvalsRequired: t.exposeInt('approvalsRequired', {
      description:
        'Distinct people who must approve before it runs (its budget’s approvals; 1 without a quorum).',
    }),
    approvals: t.field({
      description:
        'The approvals recorded so far, in order; the N-th of approvalsRequired approved it (and is also its decision).',
      type: [ApprovalDecisionType],
      resolve: (call) => call.approvals,
    }),
    turnId: t.exposeID('turnId', {
      description:
        'The model turn that made the call (approvalBatch decides its calls together); null for a direct request.',
      nullable: true,
    }),
  }));
}
quorumFields(ToolCallType);
quorumFields(ApprovalRequestType);

builder.objectFields(ToolCallType, (t) => ({
  selfApprovalForbidden: t.exposeBoolean('selfApprovalForbidden', {
    description: "The run's own user may not approve it (its budget's forbidSelfApproval).",
  }),
  edit: t.field({
    description:
      'On an EDITED call: who changed its arguments, when, why, and the JSON Patch; null otherwise.',
    type: ArgumentsEditType,
    nullable: true,
    resolve: (call) => call.edit,
  }),
  replacedBy: t.field({
    description:
      'On an EDITED call: the call that ran with the edited arguments and answers the model under this call’s providerCallId.',
    type: ToolCallType,
    nullable: true,
    resolve: (call, _args, ctx) => loadCall(call.edit?.replacedBy, (id) => ctx.services.calls.get(id)),
  }),
  replaces: t.field({
    description: 'The EDITED call whose arguments a person changed into this call’s; null otherwise.',
    type: ToolCallType,
    nullable: true,
    resolve: (call, _args, ctx) => loadCall(call.replaces, (id) => ctx.services.calls.get(id)),
  }),
}));
