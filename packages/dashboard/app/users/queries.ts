import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CreateUserBody, UpdateUserBody, UserView } from "@svc/core/browser";
import { api, LIVE_REFRESH_MS } from "../api/client.ts";

/** PUT /api/v1/users/{username}: only the fields supplied change (the view's own are not sent). */
export type UserChange = Pick<UpdateUserBody, "password" | "role" | "grants">;

const userPath = (username: string) => `/api/v1/users/${encodeURIComponent(username)}`;

export const userKeys = {
  all: ["users"] as const,
};

/** Every user, by username; refreshed so others' changes appear without a reload. */
export function useUsers() {
  return useQuery({
    queryKey: userKeys.all,
    queryFn: ({ signal }) => api<UserView[]>("/api/v1/users", { signal }),
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
    mutationFn: (body: CreateUserBody) => api<UserView>("/api/v1/users", { method: "POST", body }),
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
