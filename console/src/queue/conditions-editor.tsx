import type { ConditionDraft, ConditionOperator } from '../logic/grant';

const operators: ConditionOperator[] = ['glob', 'prefix', 'equals'];

/** The argument conditions narrowing a grant, one row each: pointer, operator, value, path. */
export function ConditionsEditor({
  drafts,
  onChange,
}: {
  drafts: ConditionDraft[];
  onChange: (drafts: ConditionDraft[]) => void;
}) {
  const change = (index: number, patch: Partial<ConditionDraft>) =>
    onChange(drafts.map((d, i) => (i === index ? { ...d, ...patch } : d)));
  return (
    <div className="conditions" data-testid="grant-conditions">
      {drafts.map((draft, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place while edited.
        <div className="condition" key={index} data-testid="grant-condition">
          <input
            aria-label="argument pointer"
            data-testid="condition-pointer"
            value={draft.pointer}
            onChange={(e) => change(index, { pointer: e.target.value })}
          />
          <select
            aria-label="operator"
            data-testid="condition-operator"
            value={draft.operator}
            onChange={(e) => change(index, { operator: e.target.value as ConditionOperator })}
          >
            {operators.map((op) => (
              <option key={op}>{op}</option>
            ))}
          </select>
          <input
            aria-label="value"
            data-testid="condition-value"
            value={draft.value}
            onChange={(e) => change(index, { value: e.target.value })}
          />
          <label title="compare as a workspace path, in canonical form">
            <input
              type="checkbox"
              checked={draft.path}
              onChange={(e) => change(index, { path: e.target.checked })}
            />{' '}
            path
          </label>
          <button
            type="button"
            className="quiet"
            data-testid="condition-remove"
            onClick={() => onChange(drafts.filter((_, i) => i !== index))}
          >
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        className="quiet"
        data-testid="condition-add"
        onClick={() => onChange([...drafts, { pointer: '/', operator: 'equals', value: '', path: false }])}
      >
        + condition
      </button>
    </div>
  );
}
