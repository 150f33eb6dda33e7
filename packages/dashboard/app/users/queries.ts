import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Role } from "@svc/core/browser";
import { api, LIVE_REFRESH_MS } from "../api/client.ts";

/** A user as GET /api/v1/users returns it (the password is write-only). */
export interface UserView {
  username: string;
  role: Role;
  createdAt: string;
}

export interface NewUser {
  username: string;
  password: string;
  role: Role;
}

/** PUT /api/v1/users/{username}: only the fields supplied change. */
export interface UserChange {
  password?: string;
  role?: Role;
}

const userPath = (username: string) => `/api/v1/users/${encodeURIComponent(username)}`;

export const userKeys = {
  all: ["users"] as const,
  me: ["users", "me"] as const,
};

/** Every user, by username; refreshed so others' changes appear without a reload. */
export function useUsers() {
  return useQuery({
    queryKey: userKeys.all,
    queryFn: ({ signal }) => api<UserView[]>("/api/v1/users", { signal }),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

/** Who the API says the session belongs to (the role may have changed since sign-in). */
export function useMe() {
  return useQuery({
    queryKey: userKeys.me,
    queryFn: ({ signal }) => api<{ username: string; role: Role }>("/api/v1/auth/me", { signal }),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

/** After any user change the user list is stale, and so is the audit log that records it. */
function useInvalidateUsers() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: userKeys.all }),
      queryClient.invalidateQueries({ queryKey: ["audit"] }),
    ]);
}

export function useCreateUser() {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: (body: NewUser) => api<UserView>("/api/v1/users", { method: "POST", body }),
    onSuccess: invalidate,
  });
}

export function useUpdateUser() {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: ({ username, change }: { username: string; change: UserChange }) =>
      api<{ message: string }>(userPath(username), { method: "PUT", body: change }),
    onSuccess: invalidate,
  });
}

export function useDeleteUser() {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: (username: string) => api<{ message: string }>(userPath(username), { method: "DELETE" }),
    onSuccess: invalidate,
  });
}
