import Type from "typebox";

/** SPEC.md "Errors": every error body. */
export const ErrorBody = Type.Object({ error: Type.String() }, { description: "What went wrong." });
export const MessageBody = Type.Object({ message: Type.String() });
