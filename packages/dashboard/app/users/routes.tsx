import type { RouteObject } from "react-router";
import { UsersPage } from "./UsersPage.tsx";

export const userRoutes: RouteObject[] = [{ path: "/users", element: <UsersPage /> }];
