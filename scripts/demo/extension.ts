import { Api, type Json } from './api.js';

export const EXTENSION_ID = 'team-board';
export const POST_TOOL = `ext.${EXTENSION_ID}.post_update`;

const TOOLS = [
  {
    name: 'post_update',
    title: 'Post an update to the team board',
    displayName: 'Post to the team board',
    description:
      'Posts a short update (title and Markdown body) to a channel of the team board, where everyone in it reads it.',
    inputSchema: {
      type: 'object',
      properties: {
        channel: { type: 'string', minLength: 1, description: 'The channel, e.g. "writers-room".' },
        title: { type: 'string', minLength: 1, maxLength: 120 },
        body: { type: 'string', minLength: 1, description: 'Markdown.' },
      },
      required: ['channel', 'title', 'body'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { postId: { type: 'string' }, channel: { type: 'string' } },
      required: ['postId', 'channel'],
    },
    annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
    approvalMessageTemplate: 'Post "{{title}}" to #{{channel}} for everyone in it to read',
  },
];

const REGISTER = `mutation($tools: [ExtensionToolInput!]!) {
  registerExtensionTools(input: { tools: $tools }) { name } }`;
const INVOCATIONS = 'subscription { extensionInvocations { callId name arguments } }';
const ANSWER = `mutation($callId: ID!, $result: ExtensionResultInput!) {
  answerExtensionInvocation(callId: $callId, result: $result) { status } }`;

/**
 * A frontend extension in miniature: it registers one tool over the bridge, keeps the
 * `extensionInvocations` subscription open (which is what makes it count as connected) and
 * answers each invocation it receives.
 */
export class DemoExtension {
  private readonly api: Api;
  private posts = 0;
  private stop: (() => void) | null = null;
  readonly errors: unknown[] = [];

  constructor(url: string, token: string) {
    this.api = new Api(url, token);
  }

  async connect(isConnected: () => Promise<boolean>): Promise<void> {
    await this.api.requestOverSocket(REGISTER, { tools: TOOLS });
    this.stop = this.api.subscribe<Json>(
      INVOCATIONS,
      {},
      (data) => {
        void this.answer(data.extensionInvocations).catch((error) => this.errors.push(error));
      },
      (error) => this.errors.push(error),
    );
    // The subscription's presence row is written once it is open; calls before that fail as not connected.
    for (let i = 0; i < 100 && !(await isConnected()); i++) await sleep(100);
  }

  private async answer(invocation: { callId: string; arguments: Json }): Promise<void> {
    const postId = `post-${Date.now().toString(36)}-${++this.posts}`;
    const { channel, title } = invocation.arguments;
    await this.api.requestOverSocket(ANSWER, {
      callId: invocation.callId,
      result: {
        content: [{ type: 'text', text: `Posted "${title}" to #${channel} as ${postId}.` }],
        structured: { postId, channel },
      },
    });
  }

  async close(): Promise<void> {
    this.stop?.();
    await this.api.close();
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
