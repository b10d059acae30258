/**
 * Sample payloads for the catalog test: valid ones generated from a schema
 * (Effect's `Arbitrary`, seeded, then encoded to the wire form) or written by
 * hand, and mutations of them (missing fields, wrong types, boundary values,
 * extra keys) that are mostly invalid.
 */
import { Arbitrary, Effect, Schema } from "effect"

/** A JSON value as `JSON.parse` returns it. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const toJson = (value: unknown): Json | undefined => {
  const text = JSON.stringify(value)
  return text === undefined ? undefined : (JSON.parse(text) as Json)
}

/**
 * Up to `count` wire values of `schema`: decoded-side values from a seeded
 * `Arbitrary`, encoded, then round-tripped through JSON (what a client would
 * send). Empty when the schema's checks defeat generation (custom filters).
 */
export const generatedSamples = (schema: Schema.Top, count: number): ReadonlyArray<Json> => {
  const codec = schema as unknown as Schema.Codec<unknown, unknown>
  let typed: ReadonlyArray<unknown>
  try {
    typed = Effect.runSync(Arbitrary.sampleEffect(Arbitrary.schema(Schema.toType(codec)), { count, seed: "contracts", size: 6 }))
  } catch {
    return []
  }
  const encode = Schema.encodeUnknownSync(codec)
  return typed.flatMap((value) => {
    try {
      const json = toJson(encode(value))
      return json === undefined ? [] : [json]
    } catch {
      return []
    }
  })
}

const KEY = "agent:default:main"
const ACTION = { type: "Http", args: { method: "GET", url: "http://127.0.0.1/x" } }

/**
 * Hand-written valid payloads of the most used request schemas (and of those
 * whose custom checks defeat generation), by catalog name.
 */
export const handWrittenSamples: Readonly<Record<string, ReadonlyArray<Json>>> = {
  PlanRequest: [
    { request_id: "req-1", trigger: { channel: "telegram", thread_id: "t-1", message: { text: "Order flowers" } } },
    {
      request_id: "req-2",
      trigger: { channel: "cli", thread_id: "t", message: { text: "" } },
      locale: "en",
      timezone: "UTC",
      tags: ["spend:4500:EUR:Flower_Shop", "pii:basic_contact"],
      execute: true
    }
  ],
  PolicyCheckRequest: [
    {
      spend: { amount_minor_units: 8750, currency: "EUR" },
      pii: { categories: ["basic_contact"] },
      legal: { flags: [] },
      connector: { scope: "mcp://calendar" }
    },
    {}
  ],
  WorkflowRunRequest: [
    { key: KEY, steps: [{ type: "Confirm" }] },
    { key: "cron:nightly", lane: "cron", plan_id: "plan-1", steps: [ACTION, { ...ACTION, max_attempts: 2, timeout_ms: 1000 }] },
    { key: KEY, steps: [ACTION], budgets: { max_usd_micros: 10, max_duration_ms: 1000, max_total_tokens: 5 } }
  ],
  DeviceTokenIssueRequest: [
    { device_id: "dev-1", role: "client", scopes: ["operator.read"] },
    { device_id: "node.1", role: "node", scopes: [], persistent: true },
    { device_id: "d", role: "client", scopes: ["*"], ttl_seconds: 60 }
  ],
  ApprovalRespondRequest: [
    { decision: "approved", reason: "ok", mode: "once" },
    { decision: "denied" },
    { approved: true, reason: "legacy" }
  ],
  WsRequestEnvelope: [{ request_id: "r-1", type: "ping", payload: {} }, { request_id: "r-2", type: "workflow.run" }]
}

const WRONG_VALUES: ReadonlyArray<Json> = [null, 12345, -1, 0, 1.5, 1e15, "x", "", " padded ", "a".repeat(300), "NaN", "Infinity", true, [], {}]

/** Up to `limit` paths (key lists) of `value`'s nodes, breadth first, the root excluded. */
const paths = (value: Json, limit: number): ReadonlyArray<ReadonlyArray<string | number>> => {
  const out: Array<ReadonlyArray<string | number>> = []
  const queue: Array<readonly [Json, ReadonlyArray<string | number>]> = [[value, []]]
  while (queue.length > 0 && out.length < limit) {
    const [node, path] = queue.shift()!
    if (typeof node !== "object" || node === null) continue
    const entries: ReadonlyArray<readonly [string | number, Json]> = Array.isArray(node)
      ? (node as ReadonlyArray<Json>).map((child, i) => [i, child] as const)
      : Object.entries(node)
    for (const [key, child] of entries) {
      out.push([...path, key])
      queue.push([child, [...path, key]])
    }
  }
  return out.slice(0, limit)
}

/** `value` with the node at `path` replaced (`undefined`: removed). */
const setAt = (value: Json, path: ReadonlyArray<string | number>, replacement: Json | undefined): Json => {
  if (path.length === 0) return replacement ?? null
  const [head, ...rest] = path
  if (Array.isArray(value)) {
    const copy = [...(value as ReadonlyArray<Json>)]
    const next = setAt(copy[head as number], rest, replacement)
    if (replacement === undefined && rest.length === 0) copy.splice(head as number, 1)
    else copy[head as number] = next
    return copy
  }
  const copy = { ...(value as Record<string, Json>) }
  if (replacement === undefined && rest.length === 0) delete copy[head as string]
  else copy[head as string] = setAt(copy[head as string], rest, replacement)
  return copy
}

const getAt = (value: Json, path: ReadonlyArray<string | number>): Json =>
  path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key], value)

/**
 * Mutations of a valid sample: other root values; for each node (at most
 * `maxPaths`): removed, replaced by values of other types and boundary
 * values; arrays emptied or grown; objects given an unknown key.
 */
export const mutations = (sample: Json, maxPaths = 24): ReadonlyArray<Json> => {
  const out: Array<Json> = [null, [], "x", 7, true]
  if (typeof sample === "object" && sample !== null && !Array.isArray(sample)) out.push({ ...sample, unexpected_key: 1 })
  for (const path of paths(sample, maxPaths)) {
    out.push(setAt(sample, path, undefined))
    for (const wrong of WRONG_VALUES) out.push(setAt(sample, path, wrong))
    const node = getAt(sample, path)
    if (Array.isArray(node) && node.length > 0) out.push(setAt(sample, path, [...node, ...node, ...node]))
    if (typeof node === "string") out.push(setAt(sample, path, node + "\u0000"), setAt(sample, path, "a".repeat(70_000)))
    if (typeof node === "number") out.push(setAt(sample, path, -node - 1), setAt(sample, path, node + 0.5))
    if (typeof node === "object" && node !== null && !Array.isArray(node)) out.push(setAt(sample, path, { ...node, unexpected_key: 1 }))
  }
  return out
}
