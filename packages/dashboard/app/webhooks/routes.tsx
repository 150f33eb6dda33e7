import type { RouteObject } from "react-router";
import { WebhookPage } from "./WebhookPage.tsx";
import { WebhooksPage } from "./WebhooksPage.tsx";

export const webhookRoutes: RouteObject[] = [
  { path: "/webhooks", element: <WebhooksPage /> },
  { path: "/webhooks/:id", element: <WebhookPage /> },
];
