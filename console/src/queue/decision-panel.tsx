import { useEffect, useRef, useState } from 'react';
import { isAdmin, type Me } from '../auth/session';
import { suggestConditions, toConditionInputs } from '../logic/grant';
import type { Outcome } from '../logic/outcome';
import { newest, type QuorumCall, quorum } from '../logic/quorum';
import { DenyBox, type DenyFeedback } from './deny-box';
import { EditForm } from './edit-form';
import { QuorumProgress } from './quorum-progress';
import { ScopeChoice, type ScopeState } from './scope-choice';
import { useDecision } from './use-decision';
import type { QueueCall } from './use-queue';

export interface CardHandle {
  decide(approve: boolean): Promise<void>;
  focusReason(): void;
}

const noFeedback: DenyFeedback = { feedback: '', allowRetry: false };

/**
 * Everything a person decides on one call: the reason, the scope of an approval (with the grant
 * it would save), an edit of the arguments, feedback with a denial, and the quorum so far. `link`
 * is the signed link's token when the call was opened from a notification.
 */
export function DecisionPanel({
  call,
  me,
  link,
  onOutcome,
  register,
}: {
  call: QueueCall;
  me: Me;
  link?: string | null;
  onOutcome: (outcome: Outcome) => void;
  register?: (handle: CardHandle | null) => void;
}) {
  const { busy, problem, setProblem, approve, deny } = useDecision();
  const [reason, setReason] = useState('');
  // A grant's conditions start from the call's folder (when it has a path argument); ONCE ignores them.
  const [scope, setScope] = useState<ScopeState>(() => ({
    scope: 'ONCE',
    drafts: suggestConditions(call.arguments),
    onProfile: false,
  }));
  const [preview, setPreview] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [feedback, setFeedback] = useState<DenyFeedback>(noFeedback);
  // The approvals as this page's own approval left them, until the queue sends the call anew.
  const [recorded, setRecorded] = useState<QuorumCall | null>(null);
  const reasonInput = useRef<HTMLInputElement>(null);
  const toolName = call.approvalRequest?.toolName ?? call.name;
  // The hash the person saw on this card: a call whose arguments changed since is refused by the server.
  const argumentsHash = call.approvalRequest?.argumentsHash ?? call.argumentsHash;
  const progress = quorum(newest(call, recorded), me);
  const approvedAlready = progress.mine;
  const common = { id: call.id, argumentsHash, reason: reason.trim() || null, ...(link ? { link } : {}) };

  const approveCall = async (editedArguments?: Record<string, unknown>) => {
    // An edit is approved once: the server takes no grant with it, so the form hides the scope.
    const granting = scope.scope !== 'ONCE' && !editedArguments;
    const conditions = toConditionInputs(scope.drafts);
    if (granting && (preview === null || !conditions.ok)) {
      setProblem('The grant is shown before it is saved: wait for its preview (or fix its conditions).');
      return;
    }
    const result = await approve({
      ...common,
      ...(editedArguments ? { editedArguments } : {}),
      ...(granting ? { scope: scope.scope } : {}),
      ...(granting && conditions.ok && conditions.conditions.length > 0
        ? { grantConditions: conditions.conditions }
        : {}),
      ...(granting && scope.scope === 'ALWAYS' && scope.onProfile && call.run.profileId
        ? { grantProfileId: call.run.profileId }
        : {}),
    });
    if (!result) return;
    if (result.status === 'EDITED' && result.replacedBy) {
      onOutcome({
        kind: 'edited',
        callId: call.id,
        toolName,
        replacementId: result.replacedBy.id,
        replacementStatus: result.replacedBy.status,
      });
    } else if (result.status === 'AWAITING_APPROVAL') {
      setRecorded(result);
      onOutcome({
        kind: 'recorded',
        callId: call.id,
        count: result.approvals.length,
        required: result.approvalsRequired,
      });
    } else if (granting && preview !== null) {
      onOutcome({
        kind: 'granted',
        callId: call.id,
        toolName,
        scope: scope.scope as 'RUN' | 'ALWAYS',
        summary: preview,
      });
    } else {
      onOutcome({ kind: 'approved', callId: call.id });
    }
  };

  const denyCall = async () => {
    const text = feedback.feedback.trim();
    const result = await deny({
      ...common,
      ...(text ? { feedback: text } : {}),
      ...(feedback.allowRetry ? { allowRetry: true } : {}),
    });
    if (result) onOutcome({ kind: 'denied', callId: call.id });
  };

  const handle = useRef<CardHandle>({ decide: async () => {}, focusReason: () => {} });
  // While editing, approving means the edited arguments: only the form's own button sends them.
  handle.current.decide = (approved) =>
    approved ? (approvedAlready || editing ? Promise.resolve() : approveCall()) : denyCall();
  handle.current.focusReason = () => reasonInput.current?.focus();
  useEffect(() => {
    if (!register) return;
    register(handle.current);
    return () => register(null);
  }, [register]);

  return (
    <div className="decision-panel">
      <QuorumProgress quorum={progress} />
      {editing && (
        <EditForm
          original={call.arguments}
          busy={busy}
          onApprove={(edited) => void approveCall(edited)}
          onCancel={() => setEditing(false)}
        />
      )}
      <div className="actions">
        <input
          ref={reasonInput}
          data-testid="reason-input"
          placeholder="reason (optional)"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !approvedAlready && !editing) void approveCall();
            if (e.key === 'Escape') e.currentTarget.blur();
          }}
        />
        {!approvedAlready && !editing && (
          <>
            {/* One person's approval of a quorum call grants nothing beyond it (the server refuses a scope). */}
            {progress.required === 1 && (
              <ScopeChoice
                callId={call.id}
                value={scope}
                onChange={setScope}
                profileId={isAdmin(me) ? (call.run.profileId ?? null) : null}
                onReady={setPreview}
              />
            )}
            <button
              type="button"
              className="approve"
              data-testid="approve"
              disabled={busy || (scope.scope !== 'ONCE' && preview === null)}
              onClick={() => void approveCall()}
            >
              {scope.scope === 'ONCE'
                ? 'Approve'
                : scope.scope === 'RUN'
                  ? 'Approve for this run'
                  : 'Approve always'}
            </button>
            <button type="button" className="quiet" data-testid="edit" onClick={() => setEditing(true)}>
              Edit arguments…
            </button>
          </>
        )}
        <button
          type="button"
          className="deny"
          data-testid="deny"
          disabled={busy}
          onClick={() => void denyCall()}
        >
          Deny
        </button>
      </div>
      <details className="deny-more">
        <summary data-testid="deny-feedback-toggle">feedback for the model with a denial</summary>
        <DenyBox value={feedback} onChange={setFeedback} />
      </details>
      {problem && (
        <p className="error" data-testid="decision-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
