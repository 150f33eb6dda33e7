import type { FastifyInstance } from "fastify";
import type { ApiContext } from "../context.ts";
import { HttpError } from "./errors.ts";
import { pingStore } from "../store/db.ts";

export function healthRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    // Liveness: the process answers. SPEC.md: 200, text/plain "ok", no authentication.
    app.get("/healthz", { schema: { summary: "Liveness" } }, (_request, reply) =>
      reply.type("text/plain; charset=utf-8").send("ok"),
    );
    // Readiness: the database answers too, so a load balancer stops sending while it does not.
    app.get(
      "/readyz",
      { schema: { summary: "Readiness: the database is reachable" } },
      async (request, reply) => {
        try {
          await pingStore(ctx.store);
        } catch (error) {
          request.log.warn({ err: error }, "readiness: database unreachable");
          throw new HttpError(503, "database unreachable");
        }
        return reply.type("text/plain; charset=utf-8").send("ok");
      },
    );
    done();
  };
}
