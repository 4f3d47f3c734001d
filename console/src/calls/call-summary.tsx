import type { CallPageFieldsFragment } from '../gql/graphql';
import { asPatch } from '../logic/json-patch';
import { callHref, runHref } from '../route';
import { PatchView } from '../run/diff-view';
import { ArgumentsView } from '../text/arguments-view';
import { Decider } from '../text/decider';
import { LookalikeWarnings, Revealed } from '../text/revealed';

const time = (iso: string) => new Date(iso).toLocaleString();

/** A call no longer waiting: its status, the decision, and the edit linking it to its replacement. */
export function CallSummary({ call }: { call: CallPageFieldsFragment }) {
  const decision = call.decision;
  return (
    <article className="card" data-testid="call-summary" data-call-id={call.id} data-status={call.status}>
      <header className="card-head">
        <span className="tool">{call.name}</span>
        <span className={`status status-${call.status.toLowerCase()}`} data-testid="call-status">
          {call.status}
        </span>
        <a href={runHref(call.run.id)} data-testid="run-link">
          run {call.run.id}
        </a>
      </header>
      {call.edit && (
        <div className="edit" data-testid="call-edit">
          <p>
            Arguments edited by <Decider actor={call.edit.editedBy} person={call.edit.person} /> at{' '}
            {time(call.edit.editedAt)}
            {call.edit.reason ? `: “${call.edit.reason}”` : ''}
          </p>
          <PatchView original={call.arguments} ops={asPatch(call.edit.diff)} />
        </div>
      )}
      {call.replacedBy && (
        <p>
          Replaced by{' '}
          <a href={callHref(call.replacedBy.id)} data-testid="replaced-by">
            {call.replacedBy.id}
          </a>{' '}
          ({call.replacedBy.status})
        </p>
      )}
      {call.replaces && (
        <p>
          Replaces{' '}
          <a href={callHref(call.replaces.id)} data-testid="replaces">
            {call.replaces.id}
          </a>{' '}
          ({call.replaces.status}), with edited arguments
        </p>
      )}
      {decision && (
        <p className={`decision ${decision.approved ? 'approved' : 'denied'}`} data-testid="decision">
          {decision.approved ? 'Approved' : 'Denied'} by{' '}
          <Decider actor={decision.decidedBy} person={decision.person} /> at {time(decision.decidedAt)}
          {decision.reason && (
            <>
              : “<Revealed text={decision.reason} />”
            </>
          )}
          {decision.feedback && (
            <>
              {' '}
              — told the model: “<Revealed text={decision.feedback} />”
            </>
          )}
        </p>
      )}
      <LookalikeWarnings args={call.arguments} />
      <details className="arguments">
        <summary>arguments</summary>
        <ArgumentsView value={call.arguments} />
      </details>
    </article>
  );
}
