import { useMemo } from 'react';
import { type ConditionDraft, type GrantScope, scopeLabels, toConditionInputs } from '../logic/grant';
import { ConditionsEditor } from './conditions-editor';
import { GrantPreview } from './grant-preview';

export interface ScopeState {
  scope: GrantScope;
  drafts: ConditionDraft[];
  /** ALWAYS on the run's profile instead of its user (admins). */
  onProfile: boolean;
}

const scopes: GrantScope[] = ['ONCE', 'RUN', 'ALWAYS'];

/** Once / For this run / Always, the conditions narrowing it and the server's preview of it. */
export function ScopeChoice({
  callId,
  value,
  onChange,
  profileId,
  onReady,
}: {
  callId: string;
  value: ScopeState;
  onChange: (next: ScopeState) => void;
  /** The summary of the server's preview once shown (the approval may then save it), else null. */
  onReady: (summary: string | null) => void;
  /** The run's profile, offered for ALWAYS when the person may write profile rules. */
  profileId: string | null;
}) {
  const parsed = useMemo(() => toConditionInputs(value.drafts), [value.drafts]);
  const grantProfile = value.scope === 'ALWAYS' && value.onProfile ? profileId : null;
  return (
    <>
      <span
        className="scope"
        role="radiogroup"
        aria-label="how far the approval reaches"
        data-testid="scope-choice"
      >
        {scopes.map((scope) => (
          <label key={scope}>
            <input
              type="radio"
              name={`scope-${callId}`}
              data-testid={`scope-${scope.toLowerCase()}`}
              checked={value.scope === scope}
              onChange={() => onChange({ ...value, scope })}
            />{' '}
            {scopeLabels[scope]}
          </label>
        ))}
        {value.scope === 'ALWAYS' && profileId && (
          <label>
            <input
              type="checkbox"
              data-testid="scope-on-profile"
              checked={value.onProfile}
              onChange={(e) => onChange({ ...value, onProfile: e.target.checked })}
            />{' '}
            on profile {profileId}
          </label>
        )}
      </span>
      {value.scope !== 'ONCE' && (
        <div className="scope-detail">
          <ConditionsEditor drafts={value.drafts} onChange={(drafts) => onChange({ ...value, drafts })} />
          {parsed.ok ? (
            <GrantPreview
              callId={callId}
              scope={value.scope}
              conditions={parsed.conditions}
              profileId={grantProfile}
              onReady={onReady}
            />
          ) : (
            <p className="error" role="alert">
              {parsed.error}
            </p>
          )}
        </div>
      )}
    </>
  );
}
