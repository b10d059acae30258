/**
 * The MCP servers the agent uses, over HTTP (docs/mcp.md "Seeing the servers"): `GET /mcp/servers`, operator.read
 * for device tokens. Served only with `SVC_AGENT_ENABLED=1` (else 404 after authorization, like the agent's routes).
 *
 * @module
 */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Access, scope } from "../../../src/http/api/access.ts"
import { AUTH_ERRORS } from "../../../src/http/api/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { McpServersResponse } from "../schema.ts"

/** `GET /mcp/servers`. */
export const McpClientsApi = HttpApiGroup.make("mcpClients")
  .add(
    HttpApiEndpoint.get("servers", "/mcp/servers", {
      success: McpServersResponse,
      error: AUTH_ERRORS
    }).annotateMerge(documented(
      "The MCP servers the agent uses as tool sources (`$SVC_HOME/mcp.yml` and plugins), by name: `owner`, " +
        "`transport` (`stdio`, `http`), `target` (the program, or the URL without its query), `status` (`ready`, " +
        "`starting`, `failed`), the `tools` it offers (`name` `mcp_<server>_<tool>`, policy `tool_id` " +
        "`mcp.<server>.<tool>`), `failures` since it was last ready, `last_error`, `retry_at`, `ready_at`; and " +
        "`errors`, the problems of `mcp.yml` (`file`, `line`, `message`).",
      { response: { status: "ok", servers: [], errors: [] } }
    ))
  )
  .annotate(Access, scope("operator.read"))
  .middleware(Authentication)
  .middleware(RequestErrors)
