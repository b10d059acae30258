/**
 * Renders docs/api.md, the gateway's API reference, from the declarations:
 * the HTTP endpoints of `GatewayApi` (through the same OpenAPI document
 * `GET /openapi.json` serves, src/http/openapi.ts) with their access,
 * descriptions and examples (src/http/api/examples.ts), the declared but
 * unserved routes (`PlannedApi`), the WebSocket request types
 * (`WsMessages`, `WsInitiatedRequests`, `PlannedWsMessages`) with their
 * examples, and the events (every contract's). `npm run docs:api` writes the
 * file (scripts/gen-api-docs.mjs); test/docs/api-reference.test.ts fails when
 * it differs from what this renders.
 */
import { type Schema, SchemaRepresentation } from "effect"
import { readFileSync } from "node:fs"
import { RunPausedForReaders } from "../services/workflow/events.ts"
import type { Audience, GatewayEvent } from "../services/ws-sessions/GatewayEvent.ts"
import { ErrorEvent } from "../services/ws-sessions/events.ts"
import { accessSentence, type DocumentedEndpoint, documentedEndpoints, exampleCommand } from "../src/http/api/examples.ts"
import { Contracts, GatewayApi, PlannedApi } from "../src/app/contracts.ts"
import { openApiDocument, openApiPath } from "../src/app/routes/openapi.ts"
import { PlannedWsMessages, WsInitiatedRequests, WsMessages } from "../src/app/contracts.ts"
import type { AnyWsMessage, WsInitiatedRequest } from "../src/ws/api/message.ts"

type Json = Record<string, any>

/**
 * The sections of the HTTP reference, in the order the examples build on each other. A group not listed here (a
 * new subsystem's) gets its own section after these, in `GatewayApi` order, titled by its name: listing it here
 * only places it in the narrative.
 */
export const GROUP_ORDER: ReadonlyArray<readonly [group: string, title: string]> = [
  ["health", "Health"],
  ["auth", "Sessions and device tokens"],
  ["policy", "Policy check"],
  ["policyBundle", "Policy bundle and overrides"],
  ["plan", "Plan runner"],
  ["approvals", "Approvals"],
  ["workflow", "Workflow engine"],
  ["playbooks", "Playbooks"],
  ["secrets", "Secrets"],
  ["watchers", "Watchers"],
  ["pairing", "Pairing"],
  ["nodes", "Nodes"],
  ["authProfiles", "Auth profiles and session pins"],
  ["providerOAuth", "Provider OAuth"],
  ["audit", "Audit"],
  ["snapshots", "Snapshots"],
  ["routing", "Routing configuration"],
  ["diagnostics", "Connections and presence"],
  ["runtime", "Status, metrics and usage"],
  ["contracts", "JSON Schema catalog"],
  ["docs", "OpenAPI document"],
  ["ui", "Operator UI"],
  ["plugins", "Plugins"]
]

/** Every section of the HTTP reference: {@link GROUP_ORDER}, then every other group of `endpoints`, in their order. */
const sectionsOf = (endpoints: ReadonlyArray<DocumentedEndpoint>): ReadonlyArray<readonly [group: string, title: string]> => {
  const listed = new Set(GROUP_ORDER.map(([group]) => group))
  const others = [...new Set(endpoints.map((e) => e.group))].filter((group) => !listed.has(group))
  return [...GROUP_ORDER, ...others.map((group) => [group, group] as const)]
}

/** The HTTP endpoints in the order of docs/api.md (and of the example run). */
export const orderedEndpoints = (): ReadonlyArray<DocumentedEndpoint> => {
  const endpoints = documentedEndpoints(GatewayApi)
  const order = new Map(sectionsOf(endpoints).map(([group], i) => [group, i]))
  return [...endpoints].sort((a, b) => order.get(a.group)! - order.get(b.group)!)
}

/** A file of the example plugin (examples/plugins/echo), for the page's setup. */
const echoFile = (name: string): string => readFileSync(new URL(`../examples/plugins/echo/${name}`, import.meta.url), "utf8").trimEnd()

/**
 * Files and settings the examples assume (docs/api.md "Setup"): run by test/docs/api-examples.test.ts as written
 * before the gateway starts. The example plugin is examples/plugins/echo, locked with the CLI.
 */
export const EXAMPLE_SETUP = `mkdir -p ~/.svc/playbooks/hello ~/.svc/plugins/echo
cat > ~/.svc/policy.yml <<'YAML'
v: 1
tools:
  default: require_approval        # a tool not listed pauses for an approval (a present section's default is deny)
  allow: [tool.http.fetch, tool.node.dispatch]
network_egress:
  default: require_approval
  allow: ["http://127.0.0.1:*"]
YAML
cat > ~/.svc/playbooks/hello/playbook.yml <<'YAML'
id: hello
name: Hello
description: Checks that the gateway answers
version: 1
steps:
  - id: health
    command: http GET http://127.0.0.1:8788/healthz
YAML
cat > ~/.svc/oauth-providers.yml <<'YAML'
providers:
  - id: example
    authorize_url: https://auth.example.com/oauth/authorize
    token_url: https://auth.example.com/oauth/token
    client_id: svc-gateway-example
    scopes: [profile]
YAML
cat > ~/.svc/plugins/echo/plugin.yml <<'YAML'
${echoFile("plugin.yml")}
YAML
cat > ~/.svc/plugins/echo/index.mjs <<'JS'
${echoFile("index.mjs")}
JS
npx svc-gateway plugins lock echo`

/** How the example gateway is started (docs/api.md "Setup"). */
export const EXAMPLE_START = "SVC_ENGINE_API_ENABLED=1 SVC_SNAPSHOT_IMPORT_ENABLED=1 SVC_AGENT_ENABLED=1 SVC_PLUGINS_ENABLED=1 npm start"

// ---------------------------------------------------------------------------
// Types: a compact TypeScript-like rendering of JSON Schema
// ---------------------------------------------------------------------------

const refName = (ref: string): string => decodeURIComponent(ref.slice(ref.lastIndexOf("/") + 1))
const anchor = (name: string): string => `type-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`

const literal = (value: unknown): string => JSON.stringify(value)

/** One line when it fits in `width`, else objects and unions break over lines. */
const renderType = (schema: Json | boolean | undefined, indent = "", used?: Set<string>): string => {
  if (schema === undefined || schema === true) return "unknown"
  if (schema === false) return "never"
  if (typeof schema.$ref === "string") {
    const name = refName(schema.$ref)
    used?.add(name)
    return name
  }
  if (schema.const !== undefined) return literal(schema.const)
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(" | ")
  const alternatives = schema.anyOf ?? schema.oneOf
  if (Array.isArray(alternatives)) {
    const parts = alternatives.map((s: Json) => renderType(s, indent, used))
    return withChecks(parts.join(" | "), schema)
  }
  if (Array.isArray(schema.allOf)) return schema.allOf.map((s: Json) => renderType(s, indent, used)).join(" & ")
  const type = schema.type
  if (Array.isArray(type)) return type.map((t: string) => renderType({ ...schema, type: t }, indent, used)).join(" | ")
  switch (type) {
    case "object": {
      const properties: Json = schema.properties ?? {}
      const required = new Set<string>(schema.required ?? [])
      const keys = Object.keys(properties)
      const extra = schema.additionalProperties
      if (keys.length === 0) {
        if (extra !== undefined && extra !== false) return `Record<string, ${renderType(extra, indent, used)}>`
        if (schema.patternProperties !== undefined) {
          return `Record<string, ${renderType(Object.values(schema.patternProperties)[0] as Json, indent, used)}>`
        }
        return extra === false ? "{}" : "Record<string, unknown>"
      }
      const inner = indent + "  "
      const fields = keys.map((key) => {
        const name = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : literal(key)
        return `${name}${required.has(key) ? "" : "?"}: ${renderType(properties[key], inner, used)}`
      })
      if (extra !== undefined && extra !== false && extra !== true) fields.push(`[key: string]: ${renderType(extra, inner, used)}`)
      const oneLine = `{ ${fields.join(", ")} }`
      if (oneLine.length + indent.length <= 100 && !oneLine.includes("\n")) return oneLine
      return `{\n${fields.map((f) => `${inner}${f}`).join("\n")}\n${indent}}`
    }
    case "array": {
      if (Array.isArray(schema.prefixItems)) {
        return `[${schema.prefixItems.map((s: Json) => renderType(s, indent, used)).join(", ")}]`
      }
      const item = renderType(schema.items, indent, used)
      return withChecks(`Array<${item}>`, schema)
    }
    case "string":
      return withChecks("string", schema)
    case "integer":
      return withChecks("integer", schema)
    case "number":
      return withChecks("number", schema)
    case "boolean":
      return "boolean"
    case "null":
      return "null"
    default:
      return "unknown"
  }
}

/** Short notes of a schema's bounds (`string /* 1..128 chars *\/`), for strings, numbers and arrays. */
const withChecks = (rendered: string, schema: Json): string => {
  const notes: Array<string> = []
  const range = (min: unknown, max: unknown, unit: string) => {
    if (min !== undefined && max !== undefined) notes.push(`${min}..${max}${unit}`)
    else if (min !== undefined) notes.push(`≥ ${min}${unit}`)
    else if (max !== undefined) notes.push(`≤ ${max}${unit}`)
  }
  range(schema.minLength, schema.maxLength, " chars")
  range(schema.minItems, schema.maxItems, " items")
  const safe = (n: unknown) => typeof n === "number" && Math.abs(n) < 9007199254740991
  const max = safe(schema.maximum) ? schema.maximum : undefined
  if (safe(schema.exclusiveMinimum)) notes.push(`> ${schema.exclusiveMinimum}${max === undefined ? "" : `, ≤ ${max}`}`)
  else if (safe(schema.minimum) || max !== undefined) range(safe(schema.minimum) ? schema.minimum : undefined, max, "")
  if (typeof schema.format === "string") notes.push(schema.format)
  return notes.length === 0 ? rendered : `${rendered} /* ${notes.join(", ")} */`
}

// ---------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------

const fence = (lang: string, body: string) => `\`\`\`${lang}\n${body}\n\`\`\``

/** The `# …` answer lines of an example. */
const answerLines = (endpoint: DocumentedEndpoint): Array<string> => {
  const example = endpoint.example!
  const status = example.status ?? endpoint.successStatus
  const lines = [`# ${status}`]
  if (example.text !== undefined) lines.push(`# ${example.text}`)
  else if (example.response !== undefined) lines.push(`# ${JSON.stringify(example.response)}`)
  return lines
}

const renderParameters = (operation: Json, where: "path" | "query", used: Set<string>): string | undefined => {
  const parameters = (operation.parameters ?? []).filter((p: Json) => p.in === where)
  if (parameters.length === 0) return undefined
  const rendered = parameters.map((p: Json) => `\`${p.name}${p.required ? "" : "?"}\`: \`${renderType(p.schema, "", used)}\``)
  return `- ${where === "path" ? "Path" : "Query"}: ${rendered.join(", ")}`
}

const renderEndpoint = (endpoint: DocumentedEndpoint, spec: Json, used: Set<string>): string => {
  const operation: Json = spec.paths[openApiPath(endpoint.path)][endpoint.method.toLowerCase()]
  const out: Array<string> = [`#### \`${endpoint.method} ${endpoint.path}\``, ""]
  out.push(endpoint.description ?? "(no description)", "")
  out.push(`- Access: ${accessSentence(endpoint.access, endpoint.method)}.`)
  for (const where of ["path", "query"] as const) {
    const line = renderParameters(operation, where, used)
    if (line !== undefined) out.push(line)
  }
  const body = operation.requestBody?.content
  if (body !== undefined) {
    for (const [contentType, media] of Object.entries(body) as Array<[string, Json]>) {
      out.push(`- Body (\`${contentType}\`): \`${renderType(media.schema, "", used).replace(/\n\s*/g, " ")}\``)
    }
  }
  const responses: Json = operation.responses ?? {}
  for (const [status, response] of Object.entries(responses) as Array<[string, Json]>) {
    if (Number(status) >= 400) continue
    const content = response.content as Json | undefined
    if (content === undefined) {
      out.push(`- ${status}: no body`)
      continue
    }
    for (const [contentType, media] of Object.entries(content) as Array<[string, Json]>) {
      const shape = contentType === "application/json" ? `\`${renderType(media.schema, "", used).replace(/\n\s*/g, " ")}\`` : "text"
      out.push(`- ${status} (\`${contentType}\`): ${shape}`)
    }
  }
  // 401, 403, 413 and 429 can answer any authenticated route ("Conventions"): listed only for public ones.
  const generic = endpoint.access.kind === "public" ? new Set<string>() : new Set(["401", "403", "413", "429"])
  const errors = Object.entries(responses)
    .filter(([status]) => Number(status) >= 400 && !generic.has(status))
    .map(([status, response]) => {
      const content = (response as Json).content as Json | undefined
      const media = content === undefined ? undefined : (Object.values(content)[0] as Json)
      const ref = typeof media?.schema?.$ref === "string" ? refName(media.schema.$ref) : undefined
      const component = ref === undefined ? undefined : spec.components.schemas[ref]
      const extra = component === undefined ? [] : Object.keys(component.properties ?? {}).filter((k) => k !== "error" && k !== "message")
      const code = (response as Json).description as string
      const what = component === undefined ? code : `\`${code}\``
      return `${status} ${what}${extra.length > 0 ? ` (+ ${extra.map((k) => `\`${k}\``).join(", ")})` : ""}`
    })
  if (errors.length > 0) out.push(`- Errors: ${errors.join("; ")}`)
  out.push("")
  const example = endpoint.example
  if (example === undefined) out.push("(no example)")
  else {
    if (example.needs !== undefined) out.push(`Needs: ${example.needs}`, "")
    const command = exampleCommand(endpoint.method, endpoint.path, endpoint.access, example)
    out.push(fence("sh", [...(example.setup === undefined ? [] : [example.setup]), command, ...answerLines(endpoint)].join("\n")))
  }
  return out.join("\n")
}

const renderPlanned = (): string => {
  const rows = documentedEndpoints(PlannedApi).map((e) => `| \`${e.method} ${e.path}\` | ${accessSentence(e.access, e.method)} |`)
  return ["| Route | Access |", "|---|---|", ...rows].join("\n")
}

// ---------------------------------------------------------------------------
// WebSocket
// ---------------------------------------------------------------------------

/** JSON Schema of a schema's encoded side, its definitions merged into `defs`. */
const jsonSchemaOf = (schema: Schema.Top, defs: Json): Json => {
  const document = SchemaRepresentation.toJsonSchemaDocument(SchemaRepresentation.toRepresentation(schema.ast))
  for (const [name, def] of Object.entries(document.definitions)) if (defs[name] === undefined) defs[name] = def
  return JSON.parse(JSON.stringify(document.schema).replaceAll("#/$defs/", "#/components/schemas/")) as Json
}

const audienceText = (audience: Audience): string => {
  if (audience.roles !== undefined && audience.roles.length === 0) return "only the peer it concerns (never broadcast)"
  const roles = audience.roles === undefined ? "every peer" : audience.roles.map((r) => (r === "client" ? "operator clients" : "nodes")).join(" and ")
  const scopes = audience.requiredScopes === undefined || audience.requiredScopes.length === 0
    ? ""
    : ` holding ${audience.requiredScopes.map((s) => `\`${s}\``).join(" or ")} (the admin token always)`
  const without = audience.withoutScopes === undefined ? "" : `, without ${audience.withoutScopes.map((s) => `\`${s}\``).join(", ")}`
  return `${roles}${scopes}${without}`
}

const rolesText = (roles: ReadonlyArray<string>): string =>
  roles.length === 2 ? "clients and nodes" : roles[0] === "client" ? "operator clients" : "nodes"

const renderWsMessage = (message: AnyWsMessage, defs: Json, used: Set<string>): string => {
  const out = [`#### \`${message.type}\``, ""]
  if (message.description !== undefined) out.push(message.description, "")
  out.push(
    `- Sent by: ${rolesText(message.roles)}${message.nodeToken ? " (also with a scoped node token)" : ""}.`,
    `- Access: ${message.scope === null ? "no scope needed" : `device tokens need \`${message.scope}\``}.`,
    `- Payload: \`${renderType(jsonSchemaOf(message.payload, defs), "", used).replace(/\n\s*/g, " ")}\``,
    `- Result: ${message.result.ast._tag === "Void" ? "none (`{ok: true}`)" : `\`${renderType(jsonSchemaOf(message.result, defs), "", used).replace(/\n\s*/g, " ")}\``}`,
    ""
  )
  if (message.example === undefined) out.push("(no example)")
  else {
    const request = { request_id: "r-1", type: message.type, payload: message.example.payload }
    const response = { request_id: "r-1", type: message.type, ok: true, ...(message.example.result === undefined ? {} : { result: message.example.result }) }
    out.push(fence("json", `${JSON.stringify(request)}\n${JSON.stringify(response)}`))
  }
  return out.join("\n")
}

const renderInitiated = (request: WsInitiatedRequest, defs: Json, used: Set<string>): string =>
  [
    `#### \`${request.type}\` (sent by the gateway)`,
    "",
    `- Sent to: ${rolesText(request.roles)}.`,
    `- Payload: \`${renderType(jsonSchemaOf(request.payload, defs), "", used).replace(/\n\s*/g, " ")}\``,
    `- Answer: \`${renderType(jsonSchemaOf(request.result, defs), "", used).replace(/\n\s*/g, " ")}\``
  ].join("\n")

/**
 * Every event: each contract's declarations, in the root's order (src/app/contracts.ts), then the two the gateway
 * sends besides them: `error` (a WS request it could not take) and `run.paused` as the run's readers receive it.
 */
const EVENTS: ReadonlyArray<GatewayEvent> = [
  ...Contracts.flatMap((c): ReadonlyArray<GatewayEvent> => c.events),
  ErrorEvent,
  RunPausedForReaders
]

const renderEvents = (defs: Json, used: Set<string>): string => {
  const rows = EVENTS.map((event) =>
    `| \`${event.type}\` | ${audienceText(event.audience)} | \`${renderType(jsonSchemaOf(event.payload, defs), "", used).replace(/\n\s*/g, " ").replaceAll("|", "\\|")}\` |`
  )
  return ["| Event | Sent to | Payload |", "|---|---|---|", ...rows].join("\n")
}

// ---------------------------------------------------------------------------
// The page
// ---------------------------------------------------------------------------

const HEADER = `# API reference

Every HTTP route and WebSocket message of svc-gateway: who may call it, what it takes and answers, and one example
that works when pasted. **Generated** from the declarations (\`src/http/api/\`, \`src/ws/api/\`, the events next to each
service) by \`npm run docs:api\`; do not edit by hand (\`test/docs/api-reference.test.ts\` fails when this page and the
declarations differ). \`GET /openapi.json\` serves the same HTTP declarations as OpenAPI 3.1 (with \`x-svc-access\` and
the examples as \`x-codeSamples\`); \`GET /contracts/jsonschema/catalog.json\` has a JSON Schema of every wire type.

## Conventions

- Base URL \`$GW\` (\`http://127.0.0.1:8788\` by default) and \`TOKEN\`: the admin token or a device token. Send it as
  \`Authorization: Bearer $TOKEN\` (or, from a browser, the \`svc_admin_token\` cookie set by \`POST /auth/session\`;
  a cookie request that changes state must come from the gateway's own origin).
- **Access.** The admin token may call everything. A device token needs the scope a route names (for the operator
  surfaces without a scope of their own: \`operator.read\` to read, \`operator.write\` to change). Public routes need
  no token; \`x-svc-access\` in the OpenAPI document says the same per operation.
- **Errors** are \`{"error": "<code>", "message": "…"}\` with the status listed (some add fields, listed with \`+\`).
  Every authenticated route can also answer 401 \`unauthorized\`, 403 \`forbidden\`, 413 \`payload_too_large\` and
  429 \`too_many_requests\` (with \`Retry-After\`); a route that decodes a body, path or query answers 400
  \`invalid_request\` naming the field. An unexpected failure is 500 \`internal_error\` with a \`request_id\`.
- Shapes are written like TypeScript types: \`name?\` is optional, \`/* 1..64 chars */\` notes a bound, a capitalised
  name is a type listed under [Types](#types). Bodies are JSON (\`content-type: application/json\`).

## Setup of the examples

The examples run in the order of this page, each on what the ones before it left (test/docs/api-examples.test.ts
runs them all, as written, against one gateway). They assume these files in a fresh \`~/.svc\` (an agent policy that
lets Http steps reach this host, a playbook, an OAuth provider) and a gateway started with the engine's HTTP routes
and snapshot import:

\`\`\`sh
${EXAMPLE_SETUP}
${EXAMPLE_START}
\`\`\`

and, in a second terminal, \`jq\` installed:

\`\`\`sh
GW=http://127.0.0.1:8788
TOKEN=$(cat ~/.svc/admin-token)
\`\`\`

An answer line \`# {…}\` shows the JSON answered (the fields that matter; \`…\` stands for any text), after the
status line \`# 200\`.
`

/** docs/api.md. */
export const renderApiReference = (): string => {
  const spec = openApiDocument()
  const used = new Set<string>()
  const defs: Json = { ...spec.components.schemas }
  const sections: Array<string> = [HEADER, "## HTTP", ""]
  const endpoints = orderedEndpoints()
  for (const [group, title] of sectionsOf(endpoints)) {
    const members = endpoints.filter((e) => e.group === group)
    if (members.length === 0) continue
    sections.push(`### ${title}`, "")
    for (const endpoint of members) sections.push(renderEndpoint(endpoint, spec, used), "")
  }
  sections.push(
    "### Declared, not served yet",
    "",
    "The contract's other routes. Authorization already applies (a device token without the scope gets 403); with it,",
    "the route answers 404 `not_found`.",
    "",
    renderPlanned(),
    "",
    "## WebSocket",
    "",
    "Connect to `ws://127.0.0.1:8788/ws` with the token on the upgrade (`Authorization: Bearer`, the",
    "`svc-auth.<base64url(token)>` subprotocol next to `svc-v1`, or the cookie), complete the handshake (`connect.init`,",
    "then `connect.proof` signed with the device key: docs/websocket.md), then send requests",
    "`{request_id, type, payload}`. Each gets one response `{request_id, type, ok: true, result?}` or",
    "`{request_id, type, ok: false, error: {code, message, details?}}`; events arrive as",
    "`{event_id, type, occurred_at, payload, scope?}`. The client SDK (`svc-gateway/client`) does all of it:",
    "`await client.request(type, payload)` answers the `result`.",
    "",
    "### Requests",
    ""
  )
  for (const message of WsMessages) sections.push(renderWsMessage(message, defs, used), "")
  sections.push("### Requests the gateway sends", "")
  for (const request of WsInitiatedRequests) sections.push(renderInitiated(request, defs, used), "")
  sections.push(
    "### Declared, not handled yet",
    "",
    "A device token without the scope gets `forbidden`; with it, the answer is `unsupported_request`.",
    "",
    "| Type | Access |",
    "|---|---|",
    ...PlannedWsMessages.map((m) => `| \`${m.type}\` | device tokens need \`${m.scope}\` |`),
    "",
    "### Events",
    "",
    renderEvents(defs, used),
    "",
    "## Types",
    ""
  )
  // Every named type reached from the page, and the ones they reach.
  const rendered = new Set<string>()
  const queue = [...used].sort()
  const types: Array<string> = []
  while (queue.length > 0) {
    const name = queue.shift()!
    if (rendered.has(name) || defs[name] === undefined) continue
    rendered.add(name)
    const before = new Set(used)
    const body = renderType(defs[name], "", used)
    for (const added of used) if (!before.has(added) && !rendered.has(added)) queue.push(added)
    types.push(`<a id="${anchor(name)}"></a>\n**${name}**\n\n${fence("ts", body)}`)
  }
  types.sort((a, b) => a.localeCompare(b))
  sections.push(types.join("\n\n"), "")
  return sections.join("\n").replace(/\n{3,}/g, "\n\n")
}
