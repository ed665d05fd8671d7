import { InputError } from "../errors.ts";
import { builder, rateLimited } from "./builder.ts";

export const MAX_NODES = 100;

builder.queryField("nodes", (t) =>
  t.nodeList({
    description: `Several nodes by global ID (at most ${MAX_NODES}), in request order; null for unknown ones.`,
    args: { ids: t.arg.idList({ required: true }) },
    ...rateLimited("node"),
    complexity: (args) => ({ field: 1, multiplier: args.ids.length }),
    ids: (_root, { ids }) => {
      if (ids.length > MAX_NODES)
        throw new InputError("ids", `takes at most ${MAX_NODES} IDs; got ${ids.length}`);
      return ids.map(String);
    },
  }),
);
