import { describe, expect } from 'vitest';
import { dbTest as test } from '../../support/fixtures.js';
import { addServer, allowMcp, callApproved, everythingServer, waitForState } from '../../support/mcp.js';

describe('MCP against the published reference server (@modelcontextprotocol/server-everything, stdio)', () => {
  test('lists its tools, calls echo and get-sum, keeps structured content, and times out a long operation', async ({
    services,
  }) => {
    await addServer(services, everythingServer('ev'));
    await waitForState(services, 'ev', 'CONNECTED');
    const names = (await services.registry.all()).filter((t) => t.source === 'MCP').map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'mcp.ev.echo',
        'mcp.ev.get-sum',
        'mcp.ev.get-structured-content',
        'mcp.ev.get-tiny-image',
        'mcp.ev.trigger-long-running-operation',
      ]),
    );
    const structuredSpec = await services.registry.require('mcp.ev.get-structured-content');
    expect(structuredSpec.outputSchema).toMatchObject({
      type: 'object',
      required: ['temperature', 'conditions', 'humidity'],
    });
    // Declared read-only and idempotent: shown as read-only, never trusted as idempotent, still gated.
    expect(structuredSpec).toMatchObject({
      permission: 'APPROVAL_REQUIRED',
      annotations: { readOnly: true, destructive: false, idempotent: false, openWorld: false },
    });

    await allowMcp(services, 'mcp.ev.*', { timeoutMs: 1_000 });
    const echo = await callApproved(services, 'mcp.ev.echo', { message: 'hi there' });
    expect(echo.result!.content).toEqual([{ type: 'text', text: 'Echo: hi there' }]);
    const sum = await callApproved(services, 'mcp.ev.get-sum', { a: 2, b: 40 }, echo.runId);
    expect(sum.status).toBe('COMPLETED');
    expect((sum.result!.content[0] as { text: string }).text).toMatch(/42/);
    const weather = await callApproved(
      services,
      'mcp.ev.get-structured-content',
      { location: 'Chicago' },
      echo.runId,
    );
    expect(weather.result!.structured).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
    const image = await callApproved(services, 'mcp.ev.get-tiny-image', {}, echo.runId);
    expect(image.result!.content.map((p) => p.type)).toContain('image_ref');

    // Ten seconds in five steps of two: each step is longer than the 1 s timeout.
    const slow = await callApproved(
      services,
      'mcp.ev.trigger-long-running-operation',
      { duration: 10, steps: 5 },
      echo.runId,
    );
    expect(slow.status).toBe('FAILED');
    expect(slow.error).toMatchObject({ kind: 'RECOVERABLE', code: 'timeout' });
  });

  test('a long operation whose progress comes more often than the timeout completes', async ({
    services,
  }) => {
    await addServer(services, everythingServer('ev'));
    await waitForState(services, 'ev', 'CONNECTED');
    await allowMcp(services, 'mcp.ev.*', { timeoutMs: 1_500 });
    // 2.5 s in five steps of 0.5 s, with a 1.5 s timeout restarted by each progress report.
    const call = await callApproved(services, 'mcp.ev.trigger-long-running-operation', {
      duration: 2.5,
      steps: 5,
    });
    expect(call.status).toBe('COMPLETED');
    expect(call.result!.content).toEqual([
      { type: 'text', text: 'Long running operation completed. Duration: 2.5 seconds, Steps: 5.' },
    ]);
  });

  test('a tool that throws is an error result the model reads; embedded resources become refs; sampling is never offered', async ({
    services,
  }) => {
    await addServer(services, everythingServer('ev'));
    await waitForState(services, 'ev', 'CONNECTED');
    await allowMcp(services, 'mcp.ev.*', { timeoutMs: 5_000 });
    // This client declares no sampling capability (seed §2), so the server does not offer the tool.
    expect(await services.registry.get('mcp.ev.trigger-sampling-request')).toBeNull();

    const failed = await callApproved(services, 'mcp.ev.get-resource-reference', { resourceId: 1.5 });
    expect(failed.status).toBe('COMPLETED');
    expect(failed.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('Invalid resourceId: 1.5') }],
    });

    const reference = await callApproved(
      services,
      'mcp.ev.get-resource-reference',
      { resourceId: 2 },
      failed.runId,
    );
    expect(reference.status).toBe('COMPLETED');
    expect(reference.result!.content.map((p) => p.type)).toContain('resource_ref');
    expect(reference.result!.resourceRefs.length).toBeGreaterThan(0);
  });
});
