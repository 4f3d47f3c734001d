export interface DenyFeedback {
  feedback: string;
  allowRetry: boolean;
}

/**
 * Text for the model with a denial ("Denied by <you>: <feedback>") and whether an identical call
 * later in the run may ask again instead of being refused at once with this decision.
 */
export function DenyBox({
  value,
  onChange,
}: {
  value: DenyFeedback;
  onChange: (next: DenyFeedback) => void;
}) {
  return (
    <div className="deny-box" data-testid="deny-box">
      <textarea
        aria-label="feedback for the model"
        data-testid="deny-feedback"
        placeholder="feedback for the model (optional): what to do instead"
        maxLength={4000}
        rows={2}
        value={value.feedback}
        onChange={(e) => onChange({ ...value, feedback: e.target.value })}
      />
      <label>
        <input
          type="checkbox"
          data-testid="deny-allow-retry"
          checked={value.allowRetry}
          onChange={(e) => onChange({ ...value, allowRetry: e.target.checked })}
        />{' '}
        let an identical call ask again
      </label>
    </div>
  );
}
