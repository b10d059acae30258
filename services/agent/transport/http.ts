/**
 * Agent runtime handlers (transport/httpApi.ts): one call to `AgentRuntime`
 * each. Switched off ({@link AgentSwitch}) unless `SVC_AGENT_ENABLED=1`:
 * after authorization the routes answer 404 like the planned ones.
 *
 * @module
 */
import { Effect } from "effect"
import type { GatewaySettings } from "../../../layers/config.ts"
import type { HttpGroupSwitch } from "../../../src/http/middleware.ts"
import { apiOf, group } from "../../../src/http/serve.ts"
import { DEFAULT_AGENT_ID } from "../../shared/agent.ts"
import { AgentRuntime } from "../AgentRuntime.ts"
import { AgentApi } from "./httpApi.ts"

/** The agent routes are served only with `agentEnabled` (`SVC_AGENT_ENABLED=1`). */
export const AgentSwitch: HttpGroupSwitch = {
  group: "agent",
  served: (settings: GatewaySettings) => settings.agentEnabled
}

/** Agent handlers; need {@link AgentRuntime}. */
export const AgentHttp = group(apiOf(AgentApi), "agent", (handlers) => Effect.gen(function*() {
  const runtime = yield* AgentRuntime
  return handlers.handleAll({
    turn: ({ payload }) => runtime.turn(payload),
    status: ({ query }) => runtime.status(query.agent_id ?? DEFAULT_AGENT_ID),
    context: ({ query }) => Effect.map(runtime.lastReport(query.agent_id ?? DEFAULT_AGENT_ID), (report) => ({ status: "ok" as const, report })),
    contextList: ({ query }) => Effect.map(runtime.listReports(query), (reports) => ({ status: "ok" as const, reports })),
    contextDetail: ({ params }) => Effect.map(runtime.getReport(params.id), (report) => ({ status: "ok" as const, report }))
  })
}))
