import type { Me } from '../auth/session';
import type { BatchCallFieldsFragment } from '../gql/graphql';
import { isPending, type Verdict } from '../logic/batch';
import { quorum } from '../logic/quorum';
import { callHref } from '../route';
import { Decider } from '../text/decider';

/** One call of a turn: what it does, where it stands, and this person's choice for it. */
export function BatchRow({
  call,
  me,
  verdict,
  onVerdict,
  decides,
}: {
  call: BatchCallFieldsFragment;
  me: Me;
  verdict: Verdict | null;
  onVerdict: (verdict: Verdict | null) => void;
  decides: boolean;
}) {
  const progress = quorum(call, me);
  const options: Array<[Verdict | null, string]> = [
    [null, 'leave'],
    ['APPROVE', 'approve'],
    ['DENY', 'deny'],
  ];
  return (
    <tr data-testid="batch-call" data-call-id={call.id} data-status={call.status}>
      <td>
        <a className="tool" href={callHref(call.id)}>
          {call.name}
        </a>
      </td>
      <td>
        <pre className="summary">
          {call.approvalRequest?.argumentsSummary ?? JSON.stringify(call.arguments)}
        </pre>
      </td>
      <td>
        <span className={`status status-${call.status.toLowerCase()}`} data-testid="batch-call-status">
          {call.status}
        </span>
        {progress.label && <span className="muted"> · {progress.label}</span>}
        {call.decision && (
          <span className="muted">
            {' '}
            · <Decider actor={call.decision.decidedBy} person={call.decision.person} />
          </span>
        )}
      </td>
      <td>
        {decides && isPending(call) && (
          <span className="verdicts">
            {options.map(([value, label]) => (
              <label key={label}>
                <input
                  type="radio"
                  name={`verdict-${call.id}`}
                  data-testid={`verdict-${label}`}
                  checked={verdict === value}
                  onChange={() => onVerdict(value)}
                />{' '}
                {label}
              </label>
            ))}
          </span>
        )}
      </td>
    </tr>
  );
}
