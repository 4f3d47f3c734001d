import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { StoredResource, ToolOutput } from '../../calls/tool-contract.js';
import type { ContentPart } from '../../core/tool-result.js';

type Store = (content: Buffer, mimeType: string) => Promise<StoredResource>;
type Block = CallToolResult['content'][number];

/**
 * Binary content (images, audio, embedded blobs) never rides inline in a result: it is stored once
 * by content hash, linked to the run, and the result refers to it. A `resource_link` points at
 * something the MCP server holds, so it is passed on as a reference without being fetched.
 */
async function partOf(block: Block, store: Store): Promise<ContentPart> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image': {
      const stored = await store(Buffer.from(block.data, 'base64'), block.mimeType);
      return { type: 'image_ref', uri: stored.uri, mimeType: block.mimeType };
    }
    case 'audio': {
      const stored = await store(Buffer.from(block.data, 'base64'), block.mimeType);
      return { type: 'audio_ref', uri: stored.uri, mimeType: block.mimeType };
    }
    case 'resource_link':
      return {
        type: 'resource_ref',
        uri: block.uri,
        mimeType: block.mimeType,
        description: block.description ?? block.title ?? block.name,
      };
    case 'resource': {
      const r = block.resource;
      const isText = 'text' in r;
      const mimeType = r.mimeType ?? (isText ? 'text/plain; charset=utf-8' : 'application/octet-stream');
      const content = 'text' in r ? Buffer.from(r.text) : Buffer.from(r.blob, 'base64');
      const stored = await store(content, mimeType);
      return { type: 'resource_ref', uri: stored.uri, mimeType, description: `embedded resource ${r.uri}` };
    }
  }
}

export async function outputOf(result: CallToolResult, store: Store): Promise<ToolOutput> {
  const content = await Promise.all(result.content.map((block) => partOf(block, store)));
  return {
    content,
    ...(result.structuredContent !== undefined ? { structured: result.structuredContent } : {}),
    isError: result.isError === true,
  };
}
