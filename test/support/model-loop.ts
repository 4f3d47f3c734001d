import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Gql, Role } from './fixtures.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read deep native payloads and assert their exact shape themselves.
export type Json = any;

const PROVIDERS = new URL('../fixtures/providers/', import.meta.url);

export const providerFixture = (name: string) => readFileSync(new URL(name, PROVIDERS), 'utf8');
export const providerJson = (name: string) => JSON.parse(providerFixture(name)) as Record<string, Json>;

/** A recorded stream as decoded events; `lines` picks one response out of a multi-response recording. */
export function providerStream(
  name: string,
  lines?: [number, number],
  rewrite: (line: string) => string = (l) => l,
) {
  const all = providerFixture(name)
    .split('\n')
    .filter((line) => line.trim() !== '');
  const picked = lines ? all.slice(lines[0], lines[1]) : all;
  return picked.map((line) => JSON.parse(rewrite(line)) as unknown);
}

export const SUBMIT = `mutation($runId: ID!, $provider: Provider!, $response: JSON!, $stream: Boolean) {
  submitModelResponse(runId: $runId, provider: $provider, response: $response, stream: $stream) {
    turn { id index provider native providerCallIds }
    toolCalls { id name arguments status providerCallId providerMetadata error { kind code message } }
  }
}`;

export const MODEL_REQUEST = `query($runId: ID!, $provider: Provider!, $preset: ContextPresetInput, $presetName: String) {
  modelRequest(runId: $runId, provider: $provider, preset: $preset, presetName: $presetName) {
    body
    frame { components { kind source tokens } toolResults { callId form text } dropped { kind } }
  }
}`;

export const PROVIDER_TOOLS = `query($runId: ID!, $provider: Provider!) {
  providerTools(runId: $runId, provider: $provider) { tools names { name nativeName } }
}`;

/** The agent side of the loop, speaking GraphQL with the given tokens. */
export function loopClient(gql: Gql, tokens: Record<Role, string>) {
  return {
    async createRun(input: Record<string, unknown>): Promise<string> {
      const res = await gql(
        'mutation($input: CreateRunInput!) { createRun(input: $input) { id } }',
        { input },
        tokens.AGENT,
      );
      expect(res.errors).toBeUndefined();
      return res.data!.createRun.id;
    },
    async submit(runId: string, provider: string, response: unknown, stream = false) {
      const res = await gql(SUBMIT, { runId, provider, response, stream }, tokens.AGENT);
      expect(res.errors).toBeUndefined();
      return res.data!.submitModelResponse as { turn: Json; toolCalls: Json[] };
    },
    async request(runId: string, provider: string, preset: unknown) {
      const res = await gql(MODEL_REQUEST, { runId, provider, preset }, tokens.AGENT);
      expect(res.errors).toBeUndefined();
      return res.data!.modelRequest as { body: Json; frame: Json };
    },
    async requestError(runId: string, provider: string, preset: unknown) {
      const res = await gql(MODEL_REQUEST, { runId, provider, preset }, tokens.AGENT);
      return res.errors?.[0];
    },
    async tools(runId: string, provider: string): Promise<unknown[]> {
      const res = await gql(PROVIDER_TOOLS, { runId, provider }, tokens.AGENT);
      expect(res.errors).toBeUndefined();
      return res.data!.providerTools.tools;
    },
    async decide(callId: string, approve: boolean, reason: string) {
      const field = approve ? 'approveToolCall' : 'denyToolCall';
      const res = await gql(
        `mutation($id: ID!, $reason: String) { ${field}(id: $id, reason: $reason) { id status error { message } } }`,
        { id: callId, reason },
        tokens.APPROVER,
      );
      expect(res.errors).toBeUndefined();
      return res.data![field] as { id: string; status: string; error: { message: string } | null };
    },
    async call(callId: string) {
      const res = await gql(
        'query($id: ID!) { toolCall(id: $id) { status result { isError } } }',
        { id: callId },
        tokens.AGENT,
      );
      return res.data!.toolCall as { status: string };
    },
  };
}
