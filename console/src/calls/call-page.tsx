import { useQuery } from 'urql';
import { ApprovalLinkQuery, CallQuery } from '../api/documents';
import { errorText } from '../api/errors';
import { canDecide, type Me } from '../auth/session';
import { CallCard } from '../queue/call-card';
import { useNow } from '../use-now';
import { CallSummary } from './call-summary';

/**
 * One call, `#/calls/<id>`: a card to decide while it waits, what became of it after. Opened from
 * a notification's signed link (`?link=<token>`) it is read through approvalLink, and decisions
 * pass the token, which the server accepts once.
 */
export function CallPage({ callId, link, me }: { callId: string; link: string | null; me: Me }) {
  const now = useNow();
  const [byId, refetchById] = useQuery({ query: CallQuery, variables: { id: callId }, pause: link !== null });
  const [byLink, refetchByLink] = useQuery({
    query: ApprovalLinkQuery,
    variables: { token: link ?? '' },
    pause: link === null,
    requestPolicy: 'network-only',
  });
  const result = link ? byLink : byId;
  const refetch = () =>
    link ? refetchByLink({ requestPolicy: 'network-only' }) : refetchById({ requestPolicy: 'network-only' });
  const signed = byLink.data?.approvalLink;
  const call = link ? signed?.call : byId.data?.toolCall;

  if (result.error)
    return (
      <main className="call-page">
        <p className="error" role="alert" data-testid="call-error">
          {errorText(result.error)}
        </p>
      </main>
    );
  if (result.fetching && !call) return <p className="loading">Loading the call…</p>;
  if (!call || call.id !== callId)
    return (
      <main className="call-page">
        <p className="error" role="alert" data-testid="call-error">
          {call ? 'This link is for another call.' : 'No such call, or not one this token may see.'}
        </p>
      </main>
    );
  return (
    <main className="call-page" data-testid="call-page" data-call-id={call.id}>
      {signed && (
        <p className="notice" data-testid="link-info">
          Opened from a signed link, valid until {new Date(signed.expiresAt).toLocaleString()}
          {signed.usedAt ? `; used at ${new Date(signed.usedAt).toLocaleString()}` : ''}.
        </p>
      )}
      {call.status === 'AWAITING_APPROVAL' && canDecide(me) ? (
        <CallCard call={call} me={me} now={now} link={link} onOutcome={() => refetch()} />
      ) : (
        <CallSummary call={call} />
      )}
    </main>
  );
}
