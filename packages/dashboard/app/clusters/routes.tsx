import type { RouteObject } from "react-router";
import { ClusterListPage } from "./ClusterListPage.tsx";
import { ClusterPage } from "./ClusterPage.tsx";
import { WorkloadPage } from "./WorkloadPage.tsx";

export const clusterRoutes: RouteObject[] = [
  { path: "/clusters", element: <ClusterListPage /> },
  { path: "/clusters/:id", element: <ClusterPage /> },
  { path: "/clusters/:id/workloads/:namespace/:name", element: <WorkloadPage /> },
];
