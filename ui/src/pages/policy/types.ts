/** The policy bundle and override shapes, from the declarations the server uses (services/policy-bundle/schema.ts). */
export type {
  EffectivePolicyBundle,
  PolicyBundleResponse,
  PolicyOverride,
  PolicyOverrideCreateRequest,
  PolicyOverrideStatus
} from "../../../../services/policy-bundle/schema.ts"
