import { Link } from "react-router";
import { ApiError } from "../api/client.ts";
import { planLinkOf } from "./plan-link.ts";

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
  const plan = planLinkOf(error);
  return (
    <p className="error" role="alert" id={id}>
      {errorText(error)}
      {plan === undefined ? null : (
        <>
          {" "}
          <Link to={plan}>Make this change as a rollout plan</Link>
        </>
      )}
    </p>
  );
}
