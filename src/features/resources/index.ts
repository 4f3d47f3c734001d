/** Resources as a run's model reads them (resource.read). */
export { RunResources } from './service.js';
export { resourceTools } from './tools/index.js';
