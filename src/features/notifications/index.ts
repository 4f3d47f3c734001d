/** Notifications as other modules see them: the service, the background sender, and the CLI. */
export { notificationCommands } from './cli.js';
export { ApprovalLinks, DEFAULT_LINK_TTL_MS } from './links.js';
export { defaultNotifierOptions, Notifier, type NotifierOptions } from './notifier.js';
export { NotificationService } from './service.js';
