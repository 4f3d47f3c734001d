import { useEffect } from 'react';
import { useQuery } from 'urql';
import { GrantPreviewQuery } from '../api/documents';
import { errorText } from '../api/errors';
import type { ConditionInput, GrantScope } from '../logic/grant';

/**
 * What a RUN or ALWAYS grant would be, asked of the server (grantPreview) and shown before the
 * approval saves it: for ALWAYS the exact policy rule. `onReady` gets its summary once
 * shown (the approval may then save it), null while there is none to show.
 */
export function GrantPreview({
  callId,
  scope,
  conditions,
  profileId,
  onReady,
}: {
  callId: string;
  scope: Exclude<GrantScope, 'ONCE'>;
  conditions: ConditionInput[];
  profileId: string | null;
  onReady: (summary: string | null) => void;
}) {
  const [result] = useQuery({
    query: GrantPreviewQuery,
    variables: { callId, scope, conditions, profileId },
    requestPolicy: 'network-only',
  });
  const preview = result.data?.grantPreview;
  const shown = !result.fetching && !result.error && preview ? preview.summary : null;
  useEffect(() => onReady(shown), [shown, onReady]);
  useEffect(() => () => onReady(null), [onReady]);
  if (result.fetching) return <p className="preview muted">Asking what this grant would be…</p>;
  if (result.error)
    return (
      <p className="error" data-testid="grant-preview-error" role="alert">
        {errorText(result.error)}
      </p>
    );
  if (!preview) return null;
  return (
    <div className="preview" data-testid="grant-preview" data-scope={preview.scope}>
      <p data-testid="grant-summary">{preview.summary}</p>
      {preview.rule != null && (
        <pre className="rule" data-testid="grant-rule" title="the policy rule this approval saves">
          {JSON.stringify(preview.rule, null, 2)}
        </pre>
      )}
    </div>
  );
}
