/**
 * Plugins over HTTP (issue 26 §1; gateway-api.md "Plugins"; docs/plugins.md
 * "Routes"): the loaded plugins with their load errors, and one plugin
 * (operator.admin; only with `SVC_PLUGINS_ENABLED=1`, else 404 after
 * authorization: transport/http.ts `PluginsSwitch`). The plugins' own RPC
 * routes, `/plugins/<id>/rpc/*`, are served outside `GatewayApi`
 * (transport/rpcRoute.ts).
 *
 * @module
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Access, scope } from "../../../src/http/api/access.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { NotFound } from "../../shared/errors.ts"
import { PluginDetailResponse, PluginListResponse } from "../schema.ts"

const example = {
  id: "echo",
  name: "Echo",
  version: "1.0.0",
  contributions: {
    tools: [{ name: "echo", tool_name: "plugin_echo_echo", tool_id: "plugin.echo.echo" }],
    commands: [{ name: "shout", help: "Repeats the text in capitals" }],
    routes: [{ name: "ping", path: "/plugins/echo/rpc/ping", scope: "operator.read" }],
    mcp_servers: []
  },
  integrity: { state: "verified", integrity_sha256: "…" },
  worker: { status: "running", restarts: 0 },
  loaded_at: "…",
  source_dir: "…"
}

/** `GET /plugins`, `GET /plugins/:id`. */
export const PluginsApi = HttpApiGroup.make("plugins")
  .add(
    HttpApiEndpoint.get("list", "/plugins", { success: PluginListResponse, error: REQUEST_ERRORS }).annotateMerge(documented(
      "The plugins loaded from `$SVC_HOME/plugins/<id>/` at start, by id, with their contributions, permissions, " +
        "lock (`install`), integrity state and worker state; every directory that did not load is under `errors` " +
        "(`{error, message, source_dir, plugin_id?, file?, line?}`).",
      { response: { status: "ok", plugins: [example], errors: [] } }
    )),
    HttpApiEndpoint.get("get", "/plugins/:id", {
      params: { id: Schema.String },
      success: PluginDetailResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotateMerge(documented("One loaded plugin. 404 for an id that is not loaded.", {
      path: "/plugins/echo",
      response: { status: "ok", plugin: example }
    }))
  )
  .annotate(Access, scope("operator.admin"))
  .middleware(Authentication)
  .middleware(RequestErrors)
