import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer } from './mcp-test-server.js';

/** The test MCP server as a stdio child process (`node --import tsx test/support/mcp-stdio-server.ts`). */
const pageSize = Number(process.env.MCP_TEST_PAGE_SIZE ?? '0');
const server = createTestMcpServer({ crashable: true, ...(pageSize > 0 ? { pageSize } : {}) });
await server.connect(new StdioServerTransport());
