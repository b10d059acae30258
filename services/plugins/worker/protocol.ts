/**
 * The protocol between the gateway and a plugin's worker (issue 26 §1): one
 * `effect/rpc` group served inside the worker (worker/runner.ts, over
 * `RpcServer.layerProtocolWorkerRunner`) and called by the gateway
 * (PluginWorker.ts, over `RpcClient.layerProtocolWorker`). What the worker
 * loads comes with the thread itself ({@link PluginWorkerData} as
 * `workerData`), so the worker serves nothing before its entry is imported.
 *
 * @module
 */
import { Schema } from "effect"
import { Rpc, RpcGroup } from "effect/rpc"

/** `workerData` of a plugin's worker: which plugin, and its entry module as a `file:` URL. */
export const PluginWorkerData = Schema.Struct({ plugin_id: Schema.String, entry_url: Schema.String })
export type PluginWorkerData = typeof PluginWorkerData.Type

/** A handler failed (threw, rejected, or answered something that is not JSON), with its message. */
export class PluginCallError extends Schema.TaggedError<PluginCallError>()("PluginCallError", {
  message: Schema.String
}) {}

/** The handler names the entry exports, per kind. */
export const PluginExports = Schema.Struct({
  tools: Schema.Array(Schema.String),
  commands: Schema.Array(Schema.String),
  rpc: Schema.Array(Schema.String)
})
export type PluginExports = typeof PluginExports.Type

/** A command's answer. */
export const PluginCommandOutput = Schema.Struct({ output: Schema.String, data: Schema.optionalKey(Schema.Unknown) })

/** The worker's RPC group. */
export class PluginRpcs extends RpcGroup.make(
  Rpc.make("Describe", { success: PluginExports, error: PluginCallError }),
  Rpc.make("CallTool", {
    payload: {
      name: Schema.String,
      args: Schema.Record(Schema.String, Schema.Unknown),
      secrets: Schema.Record(Schema.String, Schema.String),
      agent_id: Schema.String,
      session_id: Schema.String
    },
    success: Schema.Unknown,
    error: PluginCallError
  }),
  Rpc.make("RunCommand", {
    payload: { name: Schema.String, args: Schema.String, agent_id: Schema.String },
    success: PluginCommandOutput,
    error: PluginCallError
  }),
  Rpc.make("CallRoute", { payload: { name: Schema.String, input: Schema.Unknown }, success: Schema.Unknown, error: PluginCallError })
) {}
