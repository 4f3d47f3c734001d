import { Revealed } from './revealed';

/**
 * A call's arguments as a person reads them: keys and values, a string with line breaks as the
 * lines it holds (not escaped one-line JSON), and every hidden character marked.
 */
export function ArgumentsView({ value, testId }: { value: unknown; testId?: string }) {
  return (
    <div className="args" data-testid={testId}>
      <Value value={value} />
    </div>
  );
}

function Value({ value }: { value: unknown }) {
  if (typeof value === 'string') {
    return value.includes('\n') ? (
      <pre className="arg-text" data-testid="argument-text">
        <Revealed text={value} />
      </pre>
    ) : (
      <span className="arg-string">
        “<Revealed text={value} />”
      </span>
    );
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return <code className="arg-scalar">[]</code>;
    return (
      <ol className="arg-list" start={0}>
        {value.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: array items are known by their index.
          <li key={index}>
            <Value value={item} />
          </li>
        ))}
      </ol>
    );
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return <code className="arg-scalar">{'{}'}</code>;
    return (
      <dl className="arg-object">
        {entries.map(([key, item]) => (
          <div key={key} className="arg-entry">
            <dt>
              <Revealed text={key} />
            </dt>
            <dd>
              <Value value={item} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return <code className="arg-scalar">{JSON.stringify(value)}</code>;
}
