import { createHash } from "node:crypto";
import {
  decodeContinue,
  describeErrors,
  listMetadata,
  parsePageLimit,
  queryFingerprint,
  type FieldError,
  type Page,
  type SortKey,
  type SortKeyShape,
} from "@svc/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import Type, { type TSchema } from "typebox";
import { HttpError } from "./errors.ts";

/** Kubernetes' list shape of a page, for a route's response schema. */
export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    metadata: Type.Object({
      continue: Type.Optional(Type.String({ description: "Absent on the last page." })),
      remainingItemCount: Type.Integer({ description: "Items after this page." }),
    }),
  });
}

/** The paging parameters of a list's query string (the flag and workload lists'). */
export const PAGING_QUERY = {
  limit: Type.Optional(
    Type.String({ maxLength: 8, description: "1-1000: answer a page, {items, metadata}." }),
  ),
  continue: Type.Optional(
    Type.String({ maxLength: 4096, description: "metadata.continue of the page before." }),
  ),
};

/** How a list request pages (docs/api.md "Paged lists"). */
export interface ListPaging {
  /** The page's size; undefined for the rest of the list. */
  limit?: number;
  /** The sort key the page starts after. */
  after?: SortKey;
  /** Whether to answer Kubernetes' list shape: `limit` or `continue` was given. */
  paged: boolean;
  /** What a continue token of this query is bound to. */
  fingerprint: string;
}

/**
 * Checks `limit` and `continue` together (one 400 names both); a token must come from the same
 * list with the same filters. An empty `continue` asks for the first page.
 */
export function listPaging(
  list: string,
  query: { limit?: string; continue?: string } & Readonly<Record<string, string | undefined>>,
  shape: SortKeyShape,
): ListPaging {
  const { limit: rawLimit, continue: token, ...filters } = query;
  const errors: FieldError[] = [];
  const limit = parsePageLimit(rawLimit, errors);
  const fingerprint = queryFingerprint(list, filters);
  let after: SortKey | undefined;
  if (token !== undefined && token !== "") {
    const decoded = decodeContinue(token, fingerprint, shape);
    if (decoded.ok) after = decoded.value;
    else errors.push(...decoded.errors);
  }
  if (errors.length > 0) throw new HttpError(400, describeErrors(errors));
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(after === undefined ? {} : { after }),
    paged: rawLimit !== undefined || token !== undefined,
    fingerprint,
  };
}

/** Kubernetes' list shape around items already serialized. */
export function listPageJson(
  items: readonly string[],
  page: Pick<Page<unknown>, "after" | "remainingItemCount">,
  fingerprint: string,
): string {
  return `{"items":[${items.join(",")}],"metadata":${JSON.stringify(listMetadata(page, fingerprint))}}`;
}

/**
 * A weak validator of a list's JSON (RFC 9110 §8.8.1): equal bodies, equal tags. Weak, because
 * the same list compressed or re-encoded is the same to its reader.
 */
export function listEtag(json: string): string {
  return `W/"${createHash("sha256").update(json).digest("base64url").slice(0, 27)}"`;
}

/** Whether If-None-Match names the tag (weak comparison, RFC 9110 §13.1.2), or is `*`. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return header.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === wanted);
}

/**
 * Sends a list's JSON with its ETag, or 304 with no body when the client has it already: a
 * dashboard that polls an unchanged list downloads nothing. Responses stay `no-store` (lists
 * name users and addresses), so a client keeps the last body itself and sends its tag.
 */
export function sendList(request: FastifyRequest, reply: FastifyReply, json: string): FastifyReply {
  const etag = listEtag(json);
  void reply.header("etag", etag);
  if (ifNoneMatchHits(request.headers["if-none-match"], etag)) return reply.code(304).send();
  return reply.type("application/json; charset=utf-8").send(json);
}
