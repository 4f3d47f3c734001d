/** The shapes every part of notifications names; in rules/ so the pure message code can use them too. */

/** WEBHOOK: our JSON body, signed. CHAT_WEBHOOK: a Slack-compatible incoming webhook (`{ text }`). */
export const notificationKinds = ['WEBHOOK', 'CHAT_WEBHOOK'] as const;
export type NotificationKind = (typeof notificationKinds)[number];

/** What a target may subscribe to; each maps onto journal events (see rules/events.ts). */
export const notificationEventKinds = ['APPROVAL_REQUESTED', 'APPROVAL_EXPIRING', 'CALL_DECIDED'] as const;
export type NotificationEventKind = (typeof notificationEventKinds)[number];

export const deliveryStatuses = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];
