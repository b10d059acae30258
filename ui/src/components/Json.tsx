/** Any JSON value, pretty-printed in a scrollable block. */
export const Json = ({ value, label }: { value: unknown; label?: string }) => (
  <pre class="json" tabIndex={0} aria-label={label ?? "JSON"}>{JSON.stringify(value, null, 2)}</pre>
)
