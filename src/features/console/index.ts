/** The approval console's built files and GraphiQL's, served as static, compressed, cached assets. */

export { renderGraphiQL } from './graphiql.js';
export { type ConsoleHandlerOptions, createConsoleHandler, type StaticHandler } from './http.js';
export { PAGE_HEADERS, PAGE_POLICY, pagePolicy, setPageHeaders } from './page-headers.js';
export type { ConsoleSignIn } from './sign-in.js';
