import type { RouteObject } from "react-router";
import { ClusterListPage } from "./ClusterListPage.tsx";

export const clusterRoutes: RouteObject[] = [{ path: "/clusters", element: <ClusterListPage /> }];
