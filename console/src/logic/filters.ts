/** The queue's filters: what the inputs hold, how the URL keeps them, and what the server is sent. */
export const TOOL_SOURCES = ['BUILT_IN', 'EXTENSION', 'MCP', 'SKILL'] as const;
export type ToolSourceName = (typeof TOOL_SOURCES)[number];

export interface QueueFilters {
  user: string;
  run: string;
  tool: string;
  source: ToolSourceName | '';
}

export const NO_FILTERS: QueueFilters = { user: '', run: '', tool: '', source: '' };

/** The ApprovalQueueFilter argument; null when nothing is filtered (the server's default). */
export interface ServerFilter {
  userId?: string;
  runId?: string;
  toolPattern?: string;
  source?: ToolSourceName;
}

export function toServerFilter(filters: QueueFilters): ServerFilter | null {
  const filter: ServerFilter = {};
  const user = filters.user.trim();
  const run = filters.run.trim();
  const tool = filters.tool.trim();
  if (user) filter.userId = user;
  if (run) filter.runId = run;
  if (tool) filter.toolPattern = tool;
  if (filters.source) filter.source = filters.source;
  return Object.keys(filter).length > 0 ? filter : null;
}

const isSource = (value: string): value is ToolSourceName =>
  (TOOL_SOURCES as readonly string[]).includes(value);

/** Filters from the hash's query (`#/?user=alice&tool=workspace.*`), so a reload or a shared link keeps them. */
export function filtersFromSearch(search: string): QueueFilters {
  const params = new URLSearchParams(search);
  const source = params.get('source') ?? '';
  return {
    user: params.get('user') ?? '',
    run: params.get('run') ?? '',
    tool: params.get('tool') ?? '',
    source: isSource(source) ? source : '',
  };
}

export function filtersToSearch(filters: QueueFilters): string {
  const params = new URLSearchParams();
  for (const key of ['user', 'run', 'tool', 'source'] as const) {
    if (filters[key].trim()) params.set(key, filters[key].trim());
  }
  const search = params.toString();
  return search ? `?${search}` : '';
}
