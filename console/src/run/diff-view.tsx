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
            {line}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}
