/**
 * Which backplane this gateway runs (docs/scaling.md): `cluster` selects the PostgreSQL backplane (several instances
 * on one database, `SVC_CLUSTER=1`), announcing `role` (`SVC_ROLE`); the default is one instance, in process. A
 * reference with that default, so a graph that does not set it (tests, embedders) keeps the in-process backplane; the
 * composition root sets it from the settings (src/app/gateway.ts `GatewayConfigLive`). Its own tag rather than
 * `GatewayConfig`, whose type is derived from every subsystem's settings (importing it here would close a cycle).
 *
 * @module
 */
import { Context } from "effect"

/** `{cluster, role}`: the backplane's mode; default `{cluster: false, role: "all"}`. */
export const BackplaneMode = Context.Reference<{ readonly cluster: boolean; readonly role: string }>(
  "svc-gateway/backplane/BackplaneMode",
  { defaultValue: () => ({ cluster: false, role: "all" }) }
)
