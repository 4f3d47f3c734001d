import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { ApprovalBatchQuery, DecideBatchMutation } from '../api/documents';
import { errorText } from '../api/errors';
import { canDecide, type Me } from '../auth/session';
import type { DecideBatchMutation as DecideBatchResult } from '../gql/graphql';
import { type BatchChoices, batchDecisions, isPending, type Verdict } from '../logic/batch';
import { runHref } from '../route';
import { BatchRow } from './batch-row';

const noChoices: BatchChoices = { each: {}, all: null, reason: '', feedback: '', allowRetry: false };

type Result = DecideBatchResult['decideApprovalBatch'];

/**
 * `#/turns/<turnId>`: the calls of one model turn that needed approval, decided together in one
 * decideApprovalBatch: all approved, all denied, or each its own way. A call decided meanwhile
 * elsewhere comes back as a conflict; the others still get their decision.
 */
export function TurnPage({ turnId, me }: { turnId: string; me: Me }) {
  const [query, refetch] = useQuery({ query: ApprovalBatchQuery, variables: { turnId } });
  const [, decide] = useMutation(DecideBatchMutation);
  const [choices, setChoices] = useState<BatchChoices>(noChoices);
  const [outcome, setOutcome] = useState<Result | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const batch = query.data?.approvalBatch;
  const calls = outcome?.batch.calls ?? batch?.calls ?? [];
  const decides = canDecide(me);

  const send = async (all: Verdict | null) => {
    const chosen = all ? { ...choices, each: {}, all } : choices;
    const decisions = batchDecisions(
      calls.map((c) => ({ ...c, argumentsHash: c.approvalRequest?.argumentsHash ?? c.argumentsHash })),
      chosen,
    );
    if (decisions.length === 0) {
      setProblem('Choose approve or deny for at least one waiting call.');
      return;
    }
    setBusy(true);
    setProblem(null);
    const result = await decide({ turnId, input: { decisions } });
    setBusy(false);
    if (result.error || !result.data) {
      setProblem(result.error ? errorText(result.error) : 'no answer');
      return;
    }
    setOutcome(result.data.decideApprovalBatch);
    setChoices(noChoices);
    refetch({ requestPolicy: 'network-only' });
  };

  if (query.error)
    return (
      <main className="turn-page">
        <p className="error" role="alert">
          {errorText(query.error)}
        </p>
      </main>
    );
  if (!batch) return <p className="loading">{query.fetching ? 'Loading the turn…' : 'No such turn.'}</p>;
  const pending = calls.filter(isPending).length;
  return (
    <main className="turn-page" data-testid="turn-page" data-turn-id={turnId}>
      <h1>
        Turn {turnId} of <a href={runHref(batch.run.id)}>run {batch.run.id}</a> ·{' '}
        <span data-testid="turn-pending">{pending}</span> waiting
      </h1>
      <table className="batch">
        <tbody>
          {calls.map((call) => (
            <BatchRow
              key={call.id}
              call={call}
              me={me}
              verdict={choices.each[call.id] ?? null}
              onVerdict={(verdict) =>
                setChoices((c) => ({ ...c, each: { ...c.each, [call.id]: verdict ?? undefined } }))
              }
              decides={decides}
            />
          ))}
        </tbody>
      </table>
      {decides && pending > 0 && (
        <div className="batch-actions">
          <input
            data-testid="batch-reason"
            placeholder="reason (optional, for every call)"
            value={choices.reason}
            onChange={(e) => setChoices({ ...choices, reason: e.target.value })}
          />
          <input
            data-testid="batch-feedback"
            placeholder="feedback for the model with each denial (optional)"
            value={choices.feedback}
            onChange={(e) => setChoices({ ...choices, feedback: e.target.value })}
          />
          <button
            type="button"
            className="approve"
            data-testid="batch-approve-all"
            disabled={busy}
            onClick={() => void send('APPROVE')}
          >
            Approve all {pending}
          </button>
          <button
            type="button"
            className="deny"
            data-testid="batch-deny-all"
            disabled={busy}
            onClick={() => void send('DENY')}
          >
            Deny all {pending}
          </button>
          <button type="button" data-testid="batch-send" disabled={busy} onClick={() => void send(null)}>
            Send each decision
          </button>
        </div>
      )}
      {problem && (
        <p className="error" role="alert" data-testid="batch-error">
          {problem}
        </p>
      )}
      {outcome && (
        <div className="batch-outcome" data-testid="batch-outcome">
          <p>
            Decided {outcome.decided.length}:{' '}
            {outcome.decided.map((c) => `${c.id} ${c.status}`).join(', ') || 'none'}
          </p>
          {outcome.conflicts.map((conflict) => (
            <p
              key={conflict.callId}
              className="error"
              data-testid="batch-conflict"
              data-call-id={conflict.callId}
            >
              {conflict.callId} was already {conflict.status}: {conflict.message}
            </p>
          ))}
        </div>
      )}
    </main>
  );
}
