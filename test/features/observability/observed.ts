import { createLogger } from '../../../src/app/logger.js';
import { createServices, type Services } from '../../../src/app/services.js';
import { serverTest } from '../../support/app-server.js';
import { testTools } from '../../support/test-tools.js';

export interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  [field: string]: unknown;
}

export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/**
 * `serverTest` whose services log at debug into `logs` (parsed lines), so a test can read what the
 * server wrote about each request; the same short leases and polls as the other database tests.
 */
export const observedTest = serverTest.extend<{ logs: LogLine[]; services: Services }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
  logs: async ({}, use) => use([]),
  services: async ({ testDb, logs }, use) => {
    const logger = createLogger('debug', { write: (line: string) => void logs.push(JSON.parse(line)) });
    const services = createServices(testDb.database, logger, {
      extraTools: testTools,
      dispatcher: { leaseMs: 2_000, pollMs: 100, orphanAfterMs: 1_000, defaultTimeoutMs: 10_000 },
      busPollMs: 200,
      tokenCheckMs: 200,
    });
    await services.start();
    await use(services);
    await services.stop();
  },
});

/** The value of one sample line of the Prometheus text, e.g. `ats_tool_calls_total{tool="x",…}`; 0 when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = match[2] ? match[2].split(/,(?=[a-z_]+=)/) : [];
    if (wanted.every((w) => have.includes(w)) && have.length === wanted.length) return Number(match[3]);
  }
  return 0;
}
