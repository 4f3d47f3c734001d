import { useMemo, useState } from 'react';
import { argumentsText, parseArguments } from '../logic/edit';
import { jsonPatch } from '../logic/json-patch';
import { jsonWithHiddenEscaped } from '../logic/reveal';
import { PatchView } from '../run/diff-view';
import { LookalikeWarnings } from '../text/revealed';

/**
 * The call's arguments as JSON to change before approving. The text must parse as an object
 * before the diff (original → edited, as the server will record it) and the button appear; the
 * tool's schema and the policy are the server's to check.
 */
export function EditForm({
  original,
  busy,
  onApprove,
  onCancel,
}: {
  original: unknown;
  busy: boolean;
  onApprove: (edited: Record<string, unknown>) => void;
  onCancel: () => void;
}) {
  // Hidden characters start as \u escapes: seen, and parsed back to the same arguments.
  const [text, setText] = useState(() => jsonWithHiddenEscaped(argumentsText(original)));
  const parsed = useMemo(() => parseArguments(text), [text]);
  const ops = useMemo(() => (parsed.ok ? jsonPatch(original, parsed.value) : []), [original, parsed]);
  return (
    <div className="edit-form" data-testid="edit-form">
      <textarea
        aria-label="edited arguments (JSON)"
        data-testid="edit-arguments"
        spellCheck={false}
        rows={Math.min(16, text.split('\n').length + 1)}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      {parsed.ok && <LookalikeWarnings args={parsed.value} />}
      {parsed.ok ? (
        <PatchView original={original} ops={ops} />
      ) : (
        <p className="error" data-testid="edit-invalid" role="alert">
          {parsed.error}
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          className="approve"
          data-testid="approve-edited"
          disabled={busy || !parsed.ok || ops.length === 0}
          onClick={() => parsed.ok && onApprove(parsed.value)}
        >
          Approve with these arguments
        </button>
        <button type="button" className="quiet" onClick={onCancel}>
          Cancel edit
        </button>
      </div>
    </div>
  );
}
