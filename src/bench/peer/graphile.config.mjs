// PostGraphile 5, the peer of the benchmark (src/bench/peer.ts): the amber preset, plus what a
// user would configure without code. The connection, schema, host and port come from the CLI.
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";
import { jsonPgSmartTags } from "postgraphile/utils";

/** @type {GraphileConfig.Preset} */
export default {
  extends: [PostGraphileAmberPreset],
  plugins: [
    // The snapshot makes domain.name unique with a unique index, not a constraint, which
    // PostGraphile does not read: the tag gives it domainByName, a lookup by the index.
    jsonPgSmartTags({ version: 1, config: { class: { domain: { tags: { unique: "name" } } } } }),
  ],
};
