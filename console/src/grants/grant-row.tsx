import { useState } from 'react';
import { useMutation } from 'urql';
import { RevokeGrantMutation } from '../api/documents';
import { errorText } from '../api/errors';
import type { GrantFieldsFragment } from '../gql/graphql';
import { describeCondition } from '../logic/grant';
import { callHref, runHref } from '../route';

const time = (iso: string) => new Date(iso).toLocaleString();

/** One grant: its scope, tool and conditions, whom it is for, who made it when, and Revoke. */
export function GrantRow({
  grant,
  revokes,
  onRevoked,
}: {
  grant: GrantFieldsFragment;
  revokes: boolean;
  onRevoked: () => void;
}) {
  const [, revoke] = useMutation(RevokeGrantMutation);
  const [problem, setProblem] = useState<string | null>(null);
  const revoked = grant.revokedAt !== null && grant.revokedAt !== undefined;
  return (
    <tr
      data-testid="grant"
      data-grant-id={grant.id}
      data-scope={grant.scope}
      data-revoked={revoked ? 'true' : 'false'}
      className={revoked ? 'revoked' : undefined}
    >
      <td>{grant.scope === 'RUN' ? 'this run' : 'always'}</td>
      <td className="tool">{grant.toolName}</td>
      <td data-testid="grant-conditions">
        {grant.conditions.length === 0 ? 'any arguments' : grant.conditions.map(describeCondition).join('; ')}
      </td>
      <td>
        {grant.runId && <a href={runHref(grant.runId)}>run {grant.runId}</a>}
        {grant.userId && <span> user {grant.userId}</span>}
        {grant.profileId && <span> profile {grant.profileId}</span>}
        {grant.ruleId && <span className="muted"> (rule {grant.ruleId})</span>}
      </td>
      <td data-testid="grant-made">
        {grant.createdBy} at {time(grant.createdAt)}
        {grant.sourceCall && (
          <>
            {' '}
            from <a href={callHref(grant.sourceCall.id)}>{grant.sourceCall.id}</a>
          </>
        )}
        {revoked && (
          <div className="muted" data-testid="grant-revoked">
            revoked by {grant.revokedBy} at {time(grant.revokedAt as string)}
          </div>
        )}
      </td>
      <td>
        {revokes && !revoked && (
          <button
            type="button"
            className="deny"
            data-testid="revoke"
            onClick={async () => {
              setProblem(null);
              const result = await revoke({ id: grant.id });
              if (result.error) setProblem(errorText(result.error));
              else onRevoked();
            }}
          >
            Revoke
          </button>
        )}
        {problem && (
          <span className="error" role="alert">
            {problem}
          </span>
        )}
      </td>
    </tr>
  );
}
