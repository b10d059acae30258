/**
 * The cluster subsystem's contract (src/subsystem/Subsystem.ts): empty. The
 * cluster adds settings, a start-up check and shared stores, no endpoint
 * (docs/scaling.md).
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"

/** The cluster subsystem's contract. */
export const ClusterContract: Contract<"cluster", never, never, never> = contract({ name: "cluster" })
