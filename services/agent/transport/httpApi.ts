/**
 * The agent runtime over HTTP (gateway-api.md "Agent runtime"; reference
 * §7.9; docs/agent.md). Served only with `SVC_AGENT_ENABLED=1` (else every
 * route answers 404 after authorization). Device tokens need operator.read
 * for the reads and operator.write for `POST /agent/turn`.
 *
 * @module
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Access, OPERATOR } from "../../../src/http/api/access.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { AgentRuntimeError, NotFound } from "../errors.ts"
import {
  AgentQuery,
  AgentStatus,
  AgentTurnRequest,
  AgentTurnResult,
  ContextListQuery,
  ContextListResponse,
  ContextReportResponse
} from "../schema.ts"

/** `GET /agent/status`, `POST /agent/turn`, `GET /context`, `GET /context/list`, `GET /context/detail/:id`. */
export const AgentApi = HttpApiGroup.make("agent")
  .add(
    HttpApiEndpoint.post("turn", "/agent/turn", {
      payload: AgentTurnRequest,
      success: AgentTurnResult,
      error: [...REQUEST_ERRORS, wire(AgentRuntimeError)]
    }).annotateMerge(documented(
      "Runs one agent turn: `AgentTurnRequest {agent_id?, workspace_id?, channel?, thread_id?, container_kind?, " +
        "message?, envelope?, intake_mode?, metadata?}`; without an `envelope`, `channel`, `thread_id` and `message` " +
        "are required, with one they must match it. The session is the agent's for (channel, thread_id). Answers " +
        "`{reply, session_id, used_tools, memory_written}`; 502 `agent_runtime_error` when the provider fails or no " +
        "credential resolves for it (the message names the provider, never a value). Here: the default model " +
        "`builtin/echo`.",
      {
        body: { channel: "operator", thread_id: "docs", message: "Hello, agent" },
        response: { reply: "Hello, agent", session_id: "…", used_tools: [], memory_written: false }
      }
    )),
    HttpApiEndpoint.get("status", "/agent/status", {
      query: AgentQuery,
      success: AgentStatus,
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "The agent's runtime status: its model, whether the model's provider can be used (a credential resolves; " +
        "never its value; `reason` says what is missing), its tools, its session count and last turn time.",
      {
        query: "agent_id=default",
        response: { status: "ok", agent_id: "default", enabled: true, model: "builtin/echo", provider: { id: "builtin", ready: true } }
      }
    )),
    HttpApiEndpoint.get("context", "/context", {
      query: AgentQuery,
      success: ContextReportResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotateMerge(documented(
      "The agent's newest context report (what went into its last turn: system prompt sections, history, memory " +
        "hits, tools, tool calls, usage); 404 before its first turn.",
      {
        query: "agent_id=default",
        response: { status: "ok", report: { agent_id: "default", thread_id: "docs", memory: { keyword_hits: 0, semantic_hits: 0 } } }
      }
    )),
    HttpApiEndpoint.get("contextList", "/context/list", {
      query: ContextListQuery,
      success: ContextListResponse,
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "Context reports newest first, optionally of one `session_id` or `run_id`; `limit` 1..200 (default 50).",
      { query: "limit=5", response: { status: "ok", reports: [{ thread_id: "docs" }] } }
    )),
    HttpApiEndpoint.get("contextDetail", "/context/detail/:id", {
      params: { id: Schema.String.annotate({ description: "A `context_report_id`." }) },
      success: ContextReportResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotateMerge(documented(
      "One context report; 404 `not_found` for an unknown id.",
      {
        setup: "REPORT_ID=$(curl -s \"$GW/context?agent_id=default\" -H \"authorization: Bearer $TOKEN\" | jq -r .report.context_report_id)",
        path: "/context/detail/$REPORT_ID",
        response: { status: "ok", report: { agent_id: "default" } }
      }
    ))
  )
  .annotate(Access, OPERATOR)
  .middleware(Authentication)
  .middleware(RequestErrors)
