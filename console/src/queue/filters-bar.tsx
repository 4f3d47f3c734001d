import { type QueueFilters, TOOL_SOURCES } from '../logic/filters';

const sourceLabel: Record<(typeof TOOL_SOURCES)[number], string> = {
  BUILT_IN: 'built-in',
  EXTENSION: 'extension',
  MCP: 'MCP server',
  SKILL: 'skill',
};

export function FiltersBar({
  filters,
  onChange,
}: {
  filters: QueueFilters;
  onChange: (next: QueueFilters) => void;
}) {
  const text = (key: 'user' | 'run' | 'tool', placeholder: string) => (
    <input
      data-testid={`filter-${key}`}
      aria-label={`filter by ${key}`}
      placeholder={placeholder}
      value={filters[key]}
      onChange={(e) => onChange({ ...filters, [key]: e.target.value })}
    />
  );
  return (
    <search className="filters">
      {text('user', 'user id')}
      {text('run', 'run id')}
      {text('tool', 'tool (workspace.*)')}
      <select
        data-testid="filter-source"
        aria-label="filter by source"
        value={filters.source}
        onChange={(e) => onChange({ ...filters, source: e.target.value as QueueFilters['source'] })}
      >
        <option value="">any source</option>
        {TOOL_SOURCES.map((source) => (
          <option key={source} value={source}>
            {sourceLabel[source]}
          </option>
        ))}
      </select>
    </search>
  );
}

export const describeSource = (source: string | null | undefined) =>
  source ? (sourceLabel[source as (typeof TOOL_SOURCES)[number]] ?? source) : 'unknown (tool gone)';
