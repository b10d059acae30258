/**
 * WebSocket message authorization (gateway-api.md "WebSocket API" message
 * table and rule 6): every client-to-gateway request type of the spec, with
 * the scope a device token needs (`null` = none) and the roles that may send
 * it. A type absent from this table is forbidden to device tokens. The admin
 * token bypasses scopes (not roles).
 */
import type { WsPeerRole } from "../../src/contracts/ws.ts"

/** Authorization of one request type. */
export interface WsMessageRule {
  /** Scope a device token needs; `null` when none is required. */
  readonly scope: string | null
  /** Roles allowed to send it. */
  readonly roles: ReadonlyArray<WsPeerRole>
}

const CLIENT: ReadonlyArray<WsPeerRole> = ["client"]
const NODE: ReadonlyArray<WsPeerRole> = ["node"]
const ANY: ReadonlyArray<WsPeerRole> = ["client", "node"]
const rule = (scope: string | null, roles: ReadonlyArray<WsPeerRole> = CLIENT): WsMessageRule => ({ scope, roles })

const READ = "operator.read"
const WRITE = "operator.write"

/** The table, keyed by message type. */
export const wsMessageTable: ReadonlyMap<string, WsMessageRule> = new Map<string, WsMessageRule>([
  ["ping", rule(null, ANY)],
  ["presence.beacon", rule(null, ANY)],
  ["capability.ready", rule(null, NODE)],
  ["attempt.evidence", rule(null, NODE)],
  ["approval.list", rule("operator.approvals")],
  ["approval.resolve", rule("operator.approvals")],
  ["pairing.approve", rule("operator.pairing")],
  ["pairing.deny", rule("operator.pairing")],
  ["pairing.revoke", rule("operator.pairing")],
  ["session.send", rule(WRITE)],
  ["command.execute", rule("operator.admin")],
  ["subagent.spawn", rule(WRITE)],
  ["subagent.list", rule(READ)],
  ["subagent.get", rule(READ)],
  ["subagent.send", rule(WRITE)],
  ["subagent.close", rule(WRITE)],
  ["workflow.run", rule(WRITE)],
  ["workflow.resume", rule(WRITE)],
  ["workflow.cancel", rule(WRITE)],
  ["memory.search", rule(READ)],
  ["memory.list", rule(READ)],
  ["memory.get", rule(READ)],
  ["memory.create", rule(WRITE)],
  ["memory.update", rule(WRITE)],
  ["memory.delete", rule(WRITE)],
  ["memory.forget", rule(WRITE)],
  ["memory.export", rule(WRITE)],
  ["work.create", rule(WRITE)],
  ["work.list", rule(READ)],
  ["work.get", rule(READ)],
  ["work.update", rule(WRITE)],
  ["work.transition", rule(WRITE)],
  ["work.link.create", rule(WRITE)],
  ["work.link.list", rule(READ)],
  ["work.artifact.list", rule(READ)],
  ["work.artifact.get", rule(READ)],
  ["work.artifact.create", rule(WRITE)],
  ["work.decision.list", rule(READ)],
  ["work.decision.get", rule(READ)],
  ["work.decision.create", rule(WRITE)],
  ["work.signal.list", rule(READ)],
  ["work.signal.get", rule(READ)],
  ["work.signal.create", rule(WRITE)],
  ["work.signal.update", rule(WRITE)],
  ["work.state_kv.get", rule(READ)],
  ["work.state_kv.list", rule(READ)],
  ["work.state_kv.set", rule(WRITE)]
])
