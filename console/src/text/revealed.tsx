import { argumentWarnings, revealParts } from '../logic/reveal';

/** Text with each invisible or bidi character shown as a marked code point (`U+202E`), never applied. */
export function Revealed({ text }: { text: string }) {
  return (
    <>
      {revealParts(text).map((part, index) =>
        part.hidden ? (
          <mark
            // biome-ignore lint/suspicious/noArrayIndexKey: parts of one string have no identity but their place.
            key={index}
            className={`hidden-char${part.bidi ? ' bidi' : ''}`}
            data-testid="hidden-char"
            title={part.title}
          >
            {part.hidden}
          </mark>
        ) : (
          part.text
        ),
      )}
    </>
  );
}

/** The warnings an approver reads before deciding: hidden characters and look-alike words, by place. */
export function LookalikeWarnings({ args, message }: { args: unknown; message?: string | null }) {
  const warnings = argumentWarnings(args, message);
  if (warnings.length === 0) return null;
  return (
    <div className="lookalike-warnings" role="note" data-testid="lookalike-warnings">
      <strong>Read carefully: this text is not what it seems.</strong>
      <ul>
        {warnings.map((warning) => (
          <li key={warning} data-testid="lookalike-warning">
            <Revealed text={warning} />
          </li>
        ))}
      </ul>
    </div>
  );
}
