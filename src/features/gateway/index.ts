/** The governed MCP gateway as other modules see it: built in the composition root, routed by the HTTP server. */
export { defaultGatewayCallOptions, type GatewayCallOptions, GatewayCalls } from './calls.js';
export { HostAnswers } from './host-answers.js';
export { HostNotices } from './host-notices.js';
export { GatewayHttp, type GatewayHttpOptions } from './http.js';
export { ListChanged } from './list-changed.js';
export { GatewaySessions } from './sessions.js';
export { GatewaySubscriptions } from './subscriptions.js';
