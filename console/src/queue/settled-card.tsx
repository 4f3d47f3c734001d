import type { Settled } from '../logic/outcome';

/** Where a card decided on this page was: what became of the call and where to follow it. */
export function SettledCard({ note, onDismiss }: { note: Settled; onDismiss: () => void }) {
  return (
    <article
      className="card settled"
      data-testid="settled-card"
      data-call-id={note.callId}
      data-status={note.status}
    >
      <header className="card-head">
        <span className="tool">{note.toolName}</span>
        <span className={`status status-${note.status.toLowerCase()}`} data-testid="settled-status">
          {note.status}
        </span>
        <button type="button" className="quiet" aria-label="dismiss" onClick={onDismiss}>
          ×
        </button>
      </header>
      <p data-testid="settled-text">
        {note.text}{' '}
        {note.link && (
          <a href={note.link.href} data-testid="settled-link">
            {note.link.label}
          </a>
        )}
      </p>
    </article>
  );
}
