import { builder } from "./builder.ts";
import "./snapshot.ts";
import "./app.ts";
import "./domain.ts";
import "./review.ts";
import "./node.ts";

builder.queryType({});

export const schema = builder.toSchema({ sortSchema: false });
