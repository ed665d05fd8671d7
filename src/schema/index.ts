import { builder } from "./builder.ts";
import "./snapshot.ts";

builder.queryType({});

export const schema = builder.toSchema();
