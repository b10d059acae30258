/**
 * Events of the messenger subsystem, to operator clients holding
 * `operator.read` (the admin token always).
 *
 * @module
 */
import { make, OPERATORS_READ } from "../ws-sessions/GatewayEvent.ts"
import { DeliveryReceipt } from "./schema.ts"

/**
 * `delivery.receipt`: a reply, an approval prompt or an approval's outcome
 * was sent to a chat (`sent`), could not be (`failed`, after the retries), or
 * was held back by the session's send policy `off` (`suppressed`).
 */
export const DeliveryReceiptEvent = make("delivery.receipt", { payload: DeliveryReceipt, audience: OPERATORS_READ })

/** Every event type of this subsystem. */
export const MessengerEvents = [DeliveryReceiptEvent] as const
