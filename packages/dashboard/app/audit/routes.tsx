import type { RouteObject } from "react-router";
import { AuditPage } from "./AuditPage.tsx";

export const auditRoutes: RouteObject[] = [{ path: "/audit", element: <AuditPage /> }];
