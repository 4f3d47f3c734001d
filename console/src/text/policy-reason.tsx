import { JsonView } from 'react-json-view-lite';
import { explainReason } from '../logic/reason';
import { collapseDeep, jsonStyles } from '../run/json';

/** Why a call waits for a person: the plain reason first, the rules the server quoted behind a toggle. */
export function PolicyReason({ reason }: { reason: string | null | undefined }) {
  const explained = explainReason(reason);
  return (
    <div className="policy">
      <p className="why" data-testid="policy-reason">
        {explained.human}
      </p>
      {explained.raw && (
        <details className="policy-details" data-testid="policy-details">
          <summary>
            {explained.rules.length > 0
              ? `policy rules: ${explained.rules.map((r) => r.id).join(', ')}`
              : 'policy details'}
          </summary>
          <p className="policy-raw" data-testid="policy-raw">
            {explained.raw}
          </p>
          {explained.rules.length > 0 && (
            <JsonView data={explained.rules} shouldExpandNode={collapseDeep} style={jsonStyles} />
          )}
        </details>
      )}
    </div>
  );
}
