import { canDecide, type Me } from '../auth/session';
import { argumentsText } from '../logic/edit';
import type { Outcome } from '../logic/outcome';
import { jsonWithHiddenEscaped } from '../logic/reveal';
import { expiresIn, waitedFor } from '../logic/time';
import { runHref, turnHref } from '../route';
import { ArgumentsView } from '../text/arguments-view';
import { PolicyReason } from '../text/policy-reason';
import { LookalikeWarnings, Revealed } from '../text/revealed';
import { type CardHandle, DecisionPanel } from './decision-panel';
import { describeSource } from './filters-bar';
import type { QueueCall } from './use-queue';

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
  onOutcome,
  register,
  link,
  turnSize,
}: {
  call: QueueCall;
  me: Me;
  now: number;
  selected?: boolean;
  onSelect?: () => void;
  onOutcome: (outcome: Outcome) => void;
  register?: (handle: CardHandle | null) => void;
  /** The signed link's token when opened from a notification; decisions then pass it. */
  link?: string | null;
  /** How many calls of this call's model turn are in the queue. */
  turnSize?: number;
}) {
  const request = call.approvalRequest;
  const toolName = request?.toolName ?? call.name;
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
      <PolicyReason reason={request?.policyReason ?? call.policyReason} />
      <LookalikeWarnings args={call.arguments} message={request?.message} />
      {request?.message && (
        <p className="message" data-testid="approval-message" title="written by the tool's author">
          <Revealed text={request.message} />
        </p>
      )}
      <ArgumentsView value={call.arguments} testId="arguments-view" />
      <details className="arguments" data-testid="arguments-json">
        <summary>arguments as JSON</summary>
        <pre className="summary">{jsonWithHiddenEscaped(argumentsText(call.arguments))}</pre>
      </details>
      {call.turnId && (
        <p className="turn">
          <a data-testid="turn-link" href={turnHref(call.turnId)}>
            {turnSize && turnSize > 1 ? `decide this turn's ${turnSize} calls together` : "this call's turn"}
          </a>
        </p>
      )}
      {decides && <DecisionPanel call={call} me={me} link={link} onOutcome={onOutcome} register={register} />}
    </article>
  );
}
