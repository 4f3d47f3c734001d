import { type PatchOp, patchLines } from '../logic/json-patch';
import { Revealed } from '../text/revealed';

/** A unified diff, line by line, coloured by what each line does. */
export function DiffView({ text }: { text: string }) {
  const lines = text.split('\n');
  return (
    <pre className="diff">
      {lines.map((line, index) => {
        const kind =
          line.startsWith('+++') || line.startsWith('---')
            ? 'file'
            : line.startsWith('@@')
              ? 'hunk'
              : line.startsWith('+')
                ? 'add'
                : line.startsWith('-')
                  ? 'del'
                  : 'ctx';
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines have no identity but their place.
          <span key={index} className={`diff-${kind}`}>
            <Revealed text={line} />
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}

/** A JSON Patch (an edit's diff) as removed and added lines, coloured like a unified diff. */
export function PatchView({ original, ops }: { original: unknown; ops: readonly PatchOp[] }) {
  if (ops.length === 0) return <p className="muted">no change</p>;
  return (
    <pre className="diff" data-testid="arguments-diff">
      {patchLines(original, ops).map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a patch's lines have no identity but their place.
        <span key={index} className={`diff-${line.kind}`} data-kind={line.kind}>
          <Revealed text={line.text} />
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
