import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import { dbTest } from '../support/fixtures.js';
import { agent, allow, newRun, resultText, structured } from '../support/lifecycle.js';

const call = (services: Services, runId: string, name: string, args: Record<string, unknown>) =>
  services.calls.request({ runId, name, arguments: args }, agent);

/** A run allowed the test tools and resource.read, with one cut result: 40,000 digits, stored whole. */
const test = dbTest.extend<{ cut: { runId: string; uri: string; text: string } }>({
  cut: async ({ services }, use) => {
    await allow(services);
    await allow(services, 'resource.*');
    const run = await newRun(services);
    const big = await call(services, run.id, 'test.big', { chars: 40_000 });
    const uri = big.result!.resourceRefs[0]!;
    await use({ runId: run.id, uri, text: 'x'.repeat(40_000) });
  },
});

describe('resource.read', () => {
  test('opens the cut result of its own run, the first page by default', async ({ services, cut }) => {
    const done = await call(services, cut.runId, 'resource.read', { uri: cut.uri });
    expect(done.status).toBe('COMPLETED');
    expect(structured(done)).toEqual({
      uri: cut.uri,
      mimeType: 'text/plain; charset=utf-8',
      bytes: 40_000,
      start: 0,
      end: 8_000,
      totalChars: 40_000,
      nextOffset: 8_000,
      text: cut.text.slice(0, 8_000),
      summary: `Read characters 0-8000 of 40000 of ${cut.uri}. Continue with offset 8000 for the next page.`,
    });
    expect(resultText(done).split('\n')[0]).toBe(
      `${cut.uri} (text/plain; charset=utf-8, 40000 bytes): characters 0-8000 of 40000. Continue with offset 8000 for the next page.`,
    );
    // The page fits inline: reading a resource does not make another one.
    expect(done.result!.resourceRefs).toEqual([]);
  });

  test('pages with offset and length up to the end', async ({ services, cut }) => {
    const done = await call(services, cut.runId, 'resource.read', {
      uri: cut.uri,
      offset: 39_990,
      length: 50,
    });
    expect(structured(done)).toMatchObject({ start: 39_990, end: 40_000, nextOffset: null });
    expect(structured(done).text).toHaveLength(10);
    expect(resultText(done)).toMatch(/characters 39990-40000 of 40000\. This is the end\./);
  });

  test("another run's resource is a recoverable not_found the model reads, worded as for an unknown one", async ({
    services,
    cut,
  }) => {
    const other = await newRun(services);
    const done = await call(services, other.id, 'resource.read', { uri: cut.uri });
    expect(done.status).toBe('FAILED');
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'not_found',
      message: `No resource ${cut.uri} belongs to this run. Only addresses that this run's own tool results gave can be opened; check the address.`,
    });
    expect((await services.runs.get(other.id))!.status).toBe('RUNNING');
  });

  test('an unknown address is the same not_found', async ({ services, cut }) => {
    const uri = `resource://sha256/${'0'.repeat(64)}`;
    const done = await call(services, cut.runId, 'resource.read', { uri });
    expect(done.error).toMatchObject({ kind: 'RECOVERABLE', code: 'not_found' });
    expect(done.error!.message).toContain(`No resource ${uri} belongs to this run.`);
  });

  test('an address that is not resource://sha256/<hash> fails argument validation recoverably', async ({
    services,
    cut,
  }) => {
    const done = await call(services, cut.runId, 'resource.read', { uri: 'file:///etc/passwd' });
    expect(done.error).toMatchObject({ kind: 'RECOVERABLE', code: 'invalid_arguments' });
  });

  test('an offset past the end is a recoverable invalid_range naming the length', async ({
    services,
    cut,
  }) => {
    const done = await call(services, cut.runId, 'resource.read', { uri: cut.uri, offset: 40_000 });
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'invalid_range',
      message: `offset 40000 is past the end of ${cut.uri}, which has 40000 characters; start below 40000.`,
    });
  });
});
