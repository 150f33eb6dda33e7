import { ApiError } from "../api/client.ts";

/** Text of any error, as the user should read it: the API's own message when there is one. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 403) return `Not allowed: ${error.message}`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** An error shown next to what caused it; renders nothing when there is none. */
export function ErrorMessage({ error, id }: { error: unknown; id?: string }) {
  if (error === undefined || error === null) return null;
  return (
    <p className="error" role="alert" id={id}>
      {errorText(error)}
    </p>
  );
}
