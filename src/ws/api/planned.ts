/**
 * The other request types of gateway-api.md's message table, declared with
 * their scope and roles but not handled yet: device tokens without the scope
 * get `forbidden`, callers with it `unsupported_request`. When a subsystem
 * lands, its types move from here to its own declarations
 * (`services/<subsystem>/transport/wsApi.ts`) with full payload and result
 * schemas. Every type of the table is handled today (the last ones:
 * `command.execute` and `subagent.*`, issue 25); declare a new planned one as
 * `make(type, {scope, roles: CLIENT})` from ./message.ts.
 */
import type { AnyWsMessage } from "./message.ts"

/** Declared, not yet handled: none today. */
export const PlannedWsMessages: ReadonlyArray<AnyWsMessage> = []
