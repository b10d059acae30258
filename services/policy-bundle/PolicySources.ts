/**
 * The policy bundle sources, loaded once at start (reference §1.3;
 * docs/policy-bundle.md "Sources"):
 *
 * 1. deployment: the file at `SVC_POLICY_BUNDLE_PATH` (YAML or JSON), else
 *    the built-in {@link DEFAULT_POLICY_BUNDLE}. Unlike the reference, a path
 *    that is set but unreadable or invalid fails the layer with
 *    `PolicyBundleLoadError`, so the gateway does not start on a
 *    misconfiguration;
 * 2. agent: `$SVC_HOME/policy.yml|policy.yaml|policy.json`, the first that
 *    exists; an invalid one is logged (warning) and ignored.
 *
 * Changes to the files take effect on restart.
 *
 * @module
 */
import { NodeServices } from "@effect/platform-node"
import { Context, Effect, Layer, Result } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { DEFAULT_POLICY_BUNDLE } from "./bundle.ts"
import { findAgentBundle, readBundleFile } from "./loader.ts"
import type { PolicyBundleV1 } from "./schema.ts"

/** One loaded source: where it came from and its decoded bundle. */
export interface PolicySource {
  /** A file path, or `"default"` for the built-in deployment bundle. */
  readonly source: string
  readonly bundle: PolicyBundleV1
}

/** The decoded sources of the effective bundle. */
export class PolicySources extends Context.Service<PolicySources, {
  /** The deployment bundle (`source` is its path, or `"default"`). */
  readonly deployment: PolicySource
  /** The agent bundle, when one exists and is valid. */
  readonly agent: PolicySource | undefined
}>()("svc-gateway/policy-bundle/PolicySources") {
  /**
   * Loads both sources with `FileSystem`. Fails with `PolicyBundleLoadError`
   * when `deploymentPath` is set and its file is unreadable or invalid.
   */
  static readonly load = Effect.fn("PolicySources.load")(function*(options: {
    readonly deploymentPath: string | undefined
    readonly home: string
  }) {
    const deployment: PolicySource = options.deploymentPath === undefined
      ? { source: "default", bundle: DEFAULT_POLICY_BUNDLE }
      : { source: options.deploymentPath, bundle: yield* readBundleFile(options.deploymentPath, "deployment policy bundle") }
    const agentPath = yield* findAgentBundle(options.home)
    let agent: PolicySource | undefined
    if (agentPath !== undefined) {
      const loaded = yield* Effect.result(readBundleFile(agentPath, "agent policy bundle"))
      if (Result.isSuccess(loaded)) agent = { source: agentPath, bundle: loaded.success }
      else {
        yield* Effect.logWarning("agent policy bundle ignored").pipe(
          Effect.annotateLogs({ path: agentPath, problem: loaded.failure.message })
        )
      }
    }
    return PolicySources.of({ deployment, agent })
  })

  /** From `GatewayConfig`: `policyBundlePath` and `home`. Fails with `PolicyBundleLoadError` (see {@link load}). */
  static readonly layer = Layer.effect(
    PolicySources,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      return yield* PolicySources.load({ deploymentPath: settings.policyBundlePath, home: settings.home })
    })
  ).pipe(Layer.provide(NodeServices.layer))

  /** Fixed sources, for tests and embedding: `deployment` defaults to the built-in bundle. */
  static readonly make = (sources: { readonly deployment?: PolicySource; readonly agent?: PolicySource }) =>
    Layer.succeed(PolicySources, {
      deployment: sources.deployment ?? { source: "default", bundle: DEFAULT_POLICY_BUNDLE },
      agent: sources.agent
    })
}
