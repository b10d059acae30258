/**
 * The other request types of gateway-api.md's message table, declared with
 * their scope and roles but not handled yet: device tokens without the scope
 * get `forbidden`, callers with it `unsupported_request`. When a subsystem
 * lands, its types move from here to src/ws/api/<subsystem>.ts with full
 * payload and result schemas.
 */
import { CLIENT, make } from "./message.ts"

const client = (type: string, scope: string) => make(type, { scope, roles: CLIENT })

/** Declared, not yet handled. */
export const PlannedWsMessages = [
  client("command.execute", "operator.admin")
] as const
