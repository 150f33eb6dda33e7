// The users routes' own plumbing; the bodies and the view they carry are core's (user-view.ts),
// which the dashboard and the CLI read too.
import Type from "typebox";

export const UsernameParams = Type.Object(
  { username: Type.String({ maxLength: 1024 }) },
  {
    additionalProperties: false,
  },
);
