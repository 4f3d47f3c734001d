/** The stdio bridge to the MCP gateway, as the CLI sees it. */
export { mcpStdioCommands } from './cli.js';
