import type { DomainListRow } from "../db/lists.ts";
import { checkListName, LIST_LIMITS, ListNotFoundError } from "../db/lists.ts";
import { canonicalDomainName } from "../query/domain-name.ts";
import { checkNames, listFailure, listsOf, recognize } from "../query/lists.ts";
import { DEFAULT_PAGE_SIZE } from "../query/page.ts";
import { builder, legacy, pagedComplexity, rateLimited } from "./builder.ts";
import { DomainConnection, domainListArgs, domainPage } from "./domain-queries.ts";

/**
 * An account's lists of Domains (docs/decisions.md, "Lists"; src/db/lists.ts keeps them): read and
 * changed by the API key of any of the account's keys. Every list operation draws on the List
 * Domains budget, as REST's /list paths do.
 */

const NAMES = { name: "name", domains: "domains" };

/** Runs a list operation; its errors as the API answers them (400 naming the argument, 404). */
async function listing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw listFailure(e, NAMES);
  }
}

export const DomainList = builder.objectRef<DomainListRow>("DomainList").implement({
  description: `A list of Domains the account keeps (at most ${LIST_LIMITS.domains} Domains a list, ${LIST_LIMITS.lists} lists an account). It keeps names: a Domain a later snapshot no longer has stays listed.`,
  fields: (t) => ({
    name: t.exposeString("name", { ...legacy("name") }),
    count: t.exposeInt("count", { description: "The Domains it holds.", ...legacy("count") }),
    createdAt: t.expose("createdAt", { type: "DateTime", ...legacy("created_at") }),
    updatedAt: t.expose("updatedAt", {
      type: "DateTime",
      description: "When Domains were last added to it or removed from it.",
      ...legacy("updated_at"),
    }),
  }),
});

interface ListUpdateRow {
  list: DomainListRow;
  added: number;
  unrecognized: string[];
}

const ListUpdate = builder.objectRef<ListUpdateRow>("ListUpdate").implement({
  description: "What adding Domains to a list did (PUT /list/{name}/add-domains).",
  fields: (t) => ({
    list: t.expose("list", { type: DomainList, ...legacy("list") }),
    countDomainsAdded: t.exposeInt("added", {
      description: "Domains added: the names the list did not hold yet.",
      ...legacy("count_domains_added"),
    }),
    unrecognizedDomains: t.exposeStringList("unrecognized", {
      description: "Names the served snapshot does not have, as given: reported, never stored.",
      ...legacy("unrecognized_domains"),
    }),
  }),
});

const ListRemoval = builder.objectRef<{ list: DomainListRow; removed: number }>("ListRemoval").implement({
  description: "What removing Domains from a list did (POST /list/{name}/remove-domains).",
  fields: (t) => ({
    list: t.expose("list", { type: DomainList, ...legacy("list") }),
    countDomainsRemoved: t.exposeInt("removed", {
      description: "Domains removed: the names the list held.",
      ...legacy("count_domains_removed"),
    }),
  }),
});

builder.queryField("lists", (t) =>
  t.withAuth({ client: true }).field({
    type: [DomainList],
    description: "The lists of the API key's account, by name (GET /list).",
    ...rateLimited("listDomains"),
    // As many as an account may hold.
    complexity: { field: 1, multiplier: LIST_LIMITS.lists },
    resolve: (_root, _args, ctx) =>
      listing(() => {
        const { lists, account } = listsOf(ctx);
        return lists.all(account);
      }),
  }),
);

builder.queryField("list", (t) =>
  t.withAuth({ client: true }).field({
    type: DomainConnection,
    description:
      "The Domains of one of the account's lists that the served snapshot has, filterable and sorted as domains (GET /list/{name}).",
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_PAGE_SIZE),
    args: { name: t.arg.string({ required: true }), ...domainListArgs },
    resolve: (_root, { name, ...args }, ctx, info) =>
      listing(async () => {
        checkListName(name);
        const { lists, account } = listsOf(ctx);
        const names = await lists.domains(account, name);
        if (names === null) throw new ListNotFoundError(name);
        const updated = (await lists.get(account, name))?.updatedAt.getTime() ?? 0;
        // A cursor belongs to the list as it was: a page after a change starts again.
        return domainPage(ctx, info, args, { name: { in: names } }, ["list", account, name, updated]);
      }),
  }),
);

builder.mutationType({
  description: "Changes to what the API key's account keeps: its lists.",
});

/** The arguments of a change of a list's Domains, and its cost: a name each (each looked up and written). */
const namesChange = (t: Parameters<Parameters<typeof builder.mutationField>[1]>[0]) => ({
  ...rateLimited("listDomains"),
  complexity: (args: { domains: readonly string[] }) => ({
    field: Math.max(1, args.domains.length),
    multiplier: 1,
  }),
  args: {
    name: t.arg.string({ required: true }),
    domains: t.arg.stringList({
      required: true,
      description: `1 to ${LIST_LIMITS.perRequest} domain names.`,
    }),
  },
});

builder.mutationField("addDomainsToList", (t) =>
  t.withAuth({ client: true }).field({
    type: ListUpdate,
    description: "Adds Domains to a list, making the list when the account has none of that name.",
    ...namesChange(t),
    resolve: (_root, args, ctx) =>
      listing(async () => {
        checkNames(args.domains);
        const { lists, account } = listsOf(ctx);
        const { known, unrecognized } = await recognize(ctx, args.domains);
        const { list, added } = await lists.add(account, args.name, known);
        return { list, added, unrecognized };
      }),
  }),
);

builder.mutationField("removeDomainsFromList", (t) =>
  t.withAuth({ client: true }).field({
    type: ListRemoval,
    description: "Removes Domains from a list (names it does not hold are left alone).",
    ...namesChange(t),
    resolve: (_root, args, ctx) =>
      listing(async () => {
        checkNames(args.domains);
        const { lists, account } = listsOf(ctx);
        // A text that is no domain name is in no list.
        const names = [...new Set(args.domains.map(canonicalDomainName).filter((n) => n !== null))];
        return lists.remove(account, args.name, names);
      }),
  }),
);

builder.mutationField("deleteList", (t) =>
  t.withAuth({ client: true }).field({
    type: DomainList,
    description: "Deletes a list and its Domains; answers the list as it was.",
    ...rateLimited("listDomains"),
    // Up to LIST_LIMITS.domains rows deleted: weighed as a page of a few Domains.
    complexity: { field: 10, multiplier: 1 },
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) =>
      listing(async () => {
        const { lists, account } = listsOf(ctx);
        const deleted = await lists.delete(account, args.name);
        if (!deleted) throw new ListNotFoundError(args.name);
        return deleted;
      }),
  }),
);
