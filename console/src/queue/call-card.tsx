import { useEffect, useRef, useState } from 'react';
import { JsonView } from 'react-json-view-lite';
import { useMutation } from 'urql';
import { ApproveMutation, DenyMutation, SetPolicyRuleMutation } from '../api/documents';
import { canDecide, isAdmin, type Me } from '../auth/session';
import { expiresIn, waitedFor } from '../logic/time';
import { runHref } from '../route';
import { collapseDeep, jsonStyles } from '../run/json';
import { describeSource } from './filters-bar';
import type { QueueCall } from './use-queue';

export interface CardHandle {
  decide(approve: boolean): Promise<void>;
  focusReason(): void;
}

type Annotations = NonNullable<NonNullable<QueueCall['approvalRequest']>['annotations']>;

function Badges({ annotations }: { annotations: Annotations | null | undefined }) {
  if (!annotations) return <span className="badge muted">no hints (tool gone)</span>;
  const flags: Array<[keyof Annotations, string, boolean]> = [
    ['readOnly', 'read-only', annotations.readOnly],
    ['destructive', 'destructive', annotations.destructive],
    ['idempotent', 'idempotent', annotations.idempotent],
    ['openWorld', 'open world', annotations.openWorld],
  ];
  return (
    <>
      {flags
        .filter(([, , on]) => on)
        .map(([key, label]) => (
          <span key={key} className={`badge ${key}`} data-testid={`badge-${key}`}>
            {label}
          </span>
        ))}
      {annotations.cost && (
        <span className={`badge cost cost-${annotations.cost.toLowerCase()}`} data-testid="badge-cost">
          cost {annotations.cost.toLowerCase()}
        </span>
      )}
    </>
  );
}

export function CallCard({
  call,
  me,
  now,
  selected,
  onSelect,
  onDecided,
  register,
}: {
  call: QueueCall;
  me: Me;
  now: number;
  selected: boolean;
  onSelect: () => void;
  onDecided: () => void;
  register: (handle: CardHandle | null) => void;
}) {
  const request = call.approvalRequest;
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [, approve] = useMutation(ApproveMutation);
  const [, deny] = useMutation(DenyMutation);
  const [, setRule] = useMutation(SetPolicyRuleMutation);
  const [busy, setBusy] = useState(false);
  const reasonInput = useRef<HTMLInputElement>(null);
  const toolName = request?.toolName ?? call.name;
  // The hash the person saw on this card: a call whose arguments changed since is refused by the server.
  const argumentsHash = request?.argumentsHash ?? call.argumentsHash;

  const decide = async (approved: boolean) => {
    if (busy) return;
    setBusy(true);
    setProblem(null);
    const variables = { id: call.id, reason: reason.trim() || null, argumentsHash };
    const result = approved ? await approve(variables) : await deny(variables);
    setBusy(false);
    if (result.error) {
      setProblem(result.error.graphQLErrors[0]?.message ?? result.error.message);
      return;
    }
    onDecided();
  };

  const alwaysAllow = async (layer: 'USER' | 'PROFILE') => {
    const scopeId = layer === 'USER' ? call.run.userId : call.run.profileId;
    if (!scopeId) return;
    setProblem(null);
    const why = reason.trim() || `always allowed from the console by ${me.name}`;
    const result = await setRule({
      input: { layer, scopeId, toolPattern: toolName, effect: 'ALLOW', skipApproval: true, reason: why },
    });
    if (result.error || !result.data) {
      setProblem(
        result.error?.graphQLErrors[0]?.message ?? result.error?.message ?? 'the rule was not created',
      );
      return;
    }
    const rule = result.data.setPolicyRule;
    setNotice(
      `Rule ${rule.id} created: ${rule.effect} ${rule.toolPattern} without approval for ${layer === 'USER' ? 'user' : 'profile'} ` +
        `${rule.scopeId} (${rule.layer} layer). Later calls run at once; this one still waits for a decision.`,
    );
  };

  const handle = useRef<CardHandle>({ decide: async () => {}, focusReason: () => {} });
  handle.current.decide = decide;
  handle.current.focusReason = () => reasonInput.current?.focus();
  useEffect(() => {
    register(handle.current);
    return () => register(null);
  }, [register]);

  const decides = canDecide(me);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the queue's j/k shortcuts select cards from the keyboard.
    <article
      className={`card${selected ? ' selected' : ''}`}
      data-testid="call-card"
      data-call-id={call.id}
      aria-current={selected ? 'true' : undefined}
      onClick={onSelect}
    >
      <header className="card-head">
        <span className="tool" data-testid="tool-name">
          {toolName}
        </span>
        {request && request.title !== toolName && (
          <span className="title">{request.displayName ?? request.title}</span>
        )}
        <span className="badges">
          <Badges annotations={request?.annotations} />
        </span>
        <span className="source" data-testid="source">
          {describeSource(request?.source)}
        </span>
      </header>
      <dl className="meta">
        <dt>run</dt>
        <dd>
          <a data-testid="run-link" href={runHref(call.run.id)}>
            {call.run.id}
          </a>
        </dd>
        <dt>user</dt>
        <dd data-testid="call-user">{call.run.userId ?? '—'}</dd>
        <dt>profile</dt>
        <dd data-testid="call-profile">{call.run.profileId ?? '—'}</dd>
        <dt>waited</dt>
        <dd data-testid="waited" title={call.requestedAt}>
          {waitedFor(call.requestedAt, now)}
        </dd>
        <dt>expires</dt>
        <dd data-testid="expires" title={request?.expiresAt ?? 'no limit'}>
          {expiresIn(request?.expiresAt, now)}
        </dd>
      </dl>
      <p className="policy" data-testid="policy-reason">
        {request?.policyReason ?? call.policyReason ?? 'approval required'}
      </p>
      {request?.message && (
        <p className="message" data-testid="approval-message" title="written by the tool's author">
          {request.message}
        </p>
      )}
      <pre className="summary" data-testid="arguments-summary">
        {request?.argumentsSummary}
      </pre>
      <details className="arguments" data-testid="arguments-json">
        <summary>full arguments</summary>
        <JsonView data={call.arguments as object} shouldExpandNode={collapseDeep} style={jsonStyles} />
      </details>
      {decides && (
        <div className="actions">
          <input
            ref={reasonInput}
            data-testid="reason-input"
            placeholder="reason (optional)"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void decide(true);
              if (e.key === 'Escape') e.currentTarget.blur();
            }}
          />
          <button
            type="button"
            className="approve"
            data-testid="approve"
            disabled={busy}
            onClick={() => void decide(true)}
          >
            Approve
          </button>
          <button
            type="button"
            className="deny"
            data-testid="deny"
            disabled={busy}
            onClick={() => void decide(false)}
          >
            Deny
          </button>
          {call.run.userId && (
            <button
              type="button"
              className="quiet"
              data-testid="always-allow-user"
              onClick={() => void alwaysAllow('USER')}
            >
              Always allow for {call.run.userId}
            </button>
          )}
          {isAdmin(me) && call.run.profileId && (
            <button
              type="button"
              className="quiet"
              data-testid="always-allow-profile"
              onClick={() => void alwaysAllow('PROFILE')}
            >
              Always allow for profile {call.run.profileId}
            </button>
          )}
        </div>
      )}
      {problem && (
        <p className="error" data-testid="decision-error" role="alert">
          {problem}
        </p>
      )}
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
    </article>
  );
}
