import fc from "fast-check";
import type { GraphQLError } from "graphql";
import { type GraphQLObjectType, print } from "graphql";
import { describe, expect, it } from "vitest";
import { parseFields, type Selection, selectionKey, toSelectionSet } from "../../src/rest/fields.ts";
import { legacyWriter, type SharedRun, type SharedTexts } from "../../src/rest/legacy-writer.ts";
import { schema } from "../../src/schema/index.ts";

// The legacy `fields` option (docs/api.md 4, "fields"): its grammar, the GraphQL selection it becomes,
// and the reshaping of a GraphQL result to the legacy snake_case form (unknown values left out).
// Run against the real schema, so that the `legacy` declarations beside each field are covered too.

const type = (name: string) => schema.getType(name) as GraphQLObjectType;
const App = type("App");
const Domain = type("Domain");
const AppReview = type("AppReview");

/** Every legacy field of an App (docs/api.md 2.1, plus vendor_country_code) → its GraphQL field. */
const APP_FIELDS: Record<string, string> = {
  id: "appId",
  token: "token",
  platform: "platform",
  name: "name",
  description: "description",
  description_long: "descriptionLong",
  app_store_url: "appStoreUrl",
  icon_url: "iconUrl",
  average_rating: "averageRating",
  review_count: "reviewCount",
  categories: "categories",
  state: "state",
  created_at: "createdAt",
  removed_at: "removedAt",
  installs: "installs",
  instp: "instp",
  installs_30d: "installs30d",
  installs_90d: "installs90d",
  reviews_30d: "reviews30d",
  reviews_90d: "reviews90d",
  installs_time_series: "installsTimeSeries",
  integrates_with: "integratesWith",
  plans: "plans",
  free_trial_duration: "freeTrialDuration",
  vendor_name: "vendorName",
  vendor_email: "vendorEmail",
  vendor_url: "vendorUrl",
  vendor_website: "vendorWebsite",
  vendor_address: "vendorAddress",
  vendor_country_code: "vendorCountryCode",
};
const APP_LEGACY = Object.keys(APP_FIELDS);
/** Returned only when `fields` names them (docs/api.md 2.1). */
const APP_ON_REQUEST = ["description_long", "installs_time_series"];
const PLAN_FIELDS: Record<string, string> = {
  name: "name",
  monthly_cost: "monthlyCost",
  monthly_cost_cents: "monthlyCostCents",
};
const POINT_FIELDS: Record<string, string> = { date: "date", installs: "installs" };

/** The selection as plain data: legacy name → GraphQL field (and via, children). */
function plain(sel: Selection): unknown {
  return Object.fromEntries(
    [...sel].map(([k, f]) => [
      k,
      {
        field: f.field,
        ...(f.via ? { via: f.via } : {}),
        ...(f.children ? { children: plain(f.children) } : {}),
      },
    ]),
  );
}

/** Runs `fn`, expects a BAD_USER_INPUT error and returns its message. */
function fieldsError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect((e as GraphQLError).extensions.code).toBe("BAD_USER_INPUT");
    return (e as Error).message;
  }
  throw new Error("expected a BAD_USER_INPUT error");
}

const printed = (spec: string, t: GraphQLObjectType, exclude?: string[]) =>
  print(toSelectionSet(parseFields(spec, t, { exclude })));

describe("parseFields: defaults", () => {
  it("blank, absent and whitespace-only fields mean the App's default fields", () => {
    const expected = APP_LEGACY.filter((n) => !APP_ON_REQUEST.includes(n));
    for (const spec of [undefined, null, "", "   ", ",", " , ,"]) {
      expect([...parseFields(spec, App).keys()], String(spec)).toEqual(expected);
    }
  });

  it("maps every default App field to its GraphQL field", () => {
    const sel = parseFields("", App);
    for (const [legacy, f] of sel) {
      expect(f.field, legacy).toBe(APP_FIELDS[legacy]);
      expect(f.via).toBeUndefined();
    }
    expect(plain(sel.get("plans")?.children as Selection)).toEqual({
      name: { field: "name" },
      monthly_cost: { field: "monthlyCost" },
      monthly_cost_cents: { field: "monthlyCostCents" },
    });
  });

  it("* means the defaults, and * with an on-request field adds it", () => {
    expect([...parseFields("*", App).keys()]).toEqual([...parseFields("", App).keys()]);
    const withLong = [...parseFields("*,description_long", App).keys()];
    expect(withLong).toContain("description_long");
    expect(withLong).not.toContain("installs_time_series");
    expect(withLong.sort()).toEqual(APP_LEGACY.filter((n) => n !== "installs_time_series").sort());
    // Order of the paths does not matter.
    expect([...parseFields("description_long,*", App).keys()].sort()).toEqual(withLong.sort());
  });

  it("the Domain defaults leave out most_recently_published_product and the GraphQL-only relations", () => {
    const keys = [...parseFields("", Domain).keys()];
    expect(keys).not.toContain("most_recently_published_product");
    for (const k of [
      "name",
      "rank",
      "apps",
      "contact_info",
      "technologies",
      "theme",
      "trustpilot",
      "yotpo",
    ]) {
      expect(keys).toContain(k);
    }
    for (const k of ["estimated_sales_yearly", "avg_weight", "max_weight", "min_weight", "alternates"]) {
      expect(keys).toContain(k);
    }
    for (const k of ["id", "cluster", "redirect_targets", "app_reviews", "redirectTargets", "appReviews"]) {
      expect(keys).not.toContain(k);
    }
    expect(
      parseFields("*,most_recently_published_product", Domain).has("most_recently_published_product"),
    ).toBe(true);
  });

  it("exclude drops a field from the defaults and from *", () => {
    expect(parseFields("", AppReview, { exclude: ["app"] }).has("app")).toBe(false);
    expect(parseFields("*", AppReview, { exclude: ["app"] }).has("app")).toBe(false);
    expect(parseFields("", AppReview).has("app")).toBe(true);
  });

  // routes.ts excludes installs_time_series from List Apps (docs/api.md 2.1: "Only when retrieving a
  // single App") and `app` from an App's reviews (docs/api.md 2.2): a field excluded from a route is
  // not available there, even when named.
  it("exclude also refuses the field when fields names it", () => {
    fieldsError(() => parseFields("name,installs_time_series", App, { exclude: ["installs_time_series"] }));
    fieldsError(() => parseFields("rating,app", AppReview, { exclude: ["app"] }));
    // installs_time_series: only at the top of Retrieve an App.
    expect(fieldsError(() => parseFields("name,installs_time_series", App))).toContain("single App");
    expect(fieldsError(() => parseFields("apps.installs_time_series", Domain))).toContain("single App");
  });
});

describe("parseFields: paths", () => {
  it("name,plans.name selects name and the plans' names only", () => {
    expect(plain(parseFields("name,plans.name", App))).toEqual({
      name: { field: "name" },
      plans: { field: "plans", children: { name: { field: "name" } } },
    });
  });

  it("tolerates spaces around paths and repeated paths", () => {
    expect(plain(parseFields(" name , plans.name ,name,plans.name", App))).toEqual(
      plain(parseFields("name,plans.name", App)),
    );
    expect(plain(parseFields("plans.name,plans.monthly_cost", App))).toEqual({
      plans: {
        field: "plans",
        children: { name: { field: "name" }, monthly_cost: { field: "monthlyCost" } },
      },
    });
  });

  it("an object field alone selects its default sub-fields", () => {
    expect(plain(parseFields("plans", App))).toEqual({
      plans: {
        field: "plans",
        children: {
          name: { field: "name" },
          monthly_cost: { field: "monthlyCost" },
          monthly_cost_cents: { field: "monthlyCostCents" },
        },
      },
    });
    expect(plain(parseFields("installs_time_series", App, { single: true }))).toEqual({
      installs_time_series: {
        field: "installsTimeSeries",
        children: { date: { field: "date" }, installs: { field: "installs" } },
      },
    });
    expect(plain(parseFields("theme", Domain))).toEqual({
      theme: {
        field: "theme",
        children: {
          name: { field: "name" },
          style: { field: "style" },
          vendor: { field: "vendor" },
          version: { field: "version" },
          cost: { field: "cost" },
        },
      },
    });
    expect(plain(parseFields("trustpilot", Domain))).toEqual({
      trustpilot: {
        field: "trustpilot",
        children: { review_count: { field: "reviewCount" }, avg_rating: { field: "avgRating" } },
      },
    });
  });

  it("a review's app alone selects the four fields of docs/api.md 2.2", () => {
    expect(plain(parseFields("app", AppReview))).toEqual({
      app: {
        field: "app",
        children: {
          id: { field: "appId" },
          name: { field: "name" },
          app_store_url: { field: "appStoreUrl" },
          vendor_name: { field: "vendorName" },
        },
      },
    });
    // Named sub-fields replace the defaults.
    expect(plain(parseFields("app.description", AppReview))).toEqual({
      app: { field: "app", children: { description: { field: "description" } } },
    });
  });

  it("a Domain's apps carry the App's fields beside installed_at (flattened through `app`)", () => {
    expect(plain(parseFields("apps.name,apps.installed_at", Domain))).toEqual({
      apps: {
        field: "apps",
        children: {
          name: { field: "name", via: "app" },
          installed_at: { field: "installedAt" },
        },
      },
    });
    const all = parseFields("apps", Domain).get("apps")?.children as Selection;
    expect(all.get("installed_at")).toEqual({ field: "installedAt", via: undefined, children: undefined });
    // removed_at is the uninstall time of the InstalledApp, which shadows the App's own removed_at.
    expect(all.get("removed_at")?.field).toBe("removedAt");
    expect(all.get("removed_at")?.via).toBeUndefined();
    for (const k of ["id", "token", "platform", "name", "plans", "vendor_name"]) {
      expect(all.get(k)?.via, k).toBe("app");
    }
    expect(all.get("id")?.field).toBe("appId");
    expect(all.has("description_long")).toBe(false);
    expect(all.has("installs_time_series")).toBe(false);
    // A nested object of the flattened App.
    expect(plain(parseFields("apps.plans.name", Domain))).toEqual({
      apps: {
        field: "apps",
        children: { plans: { field: "plans", via: "app", children: { name: { field: "name" } } } },
      },
    });
  });

  it("apps.* is every default field of an installed App", () => {
    expect(plain(parseFields("apps.*", Domain))).toEqual(plain(parseFields("apps", Domain)));
  });
});

describe("parseFields: errors", () => {
  it("an unknown field names it and lists the known ones", () => {
    const m = fieldsError(() => parseFields("name,nope", App));
    expect(m).toContain('"nope"');
    expect(m.startsWith("fields: ")).toBe(true);
    for (const k of ["id", "plans", "description_long", "vendor_name"]) expect(m).toContain(k);
  });

  it("an unknown nested field names its whole path and the known fields of its parent", () => {
    const m = fieldsError(() => parseFields("plans.nope", App));
    expect(m).toContain('"plans.nope"');
    expect(m).toContain("known fields of plans: name, monthly_cost, monthly_cost_cents");
    const d = fieldsError(() => parseFields("apps.nope", Domain));
    expect(d).toContain('"apps.nope"');
    expect(d).toContain("installed_at");
    const deep = fieldsError(() => parseFields("apps.plans.nope", Domain));
    expect(deep).toContain('"apps.plans.nope"');
  });

  it("GraphQL names are not legacy names", () => {
    for (const s of ["appId", "appStoreUrl", "installs30d", "descriptionLong"]) {
      expect(fieldsError(() => parseFields(s, App))).toContain(`"${s}"`);
    }
    expect(fieldsError(() => parseFields("redirectTargets", Domain))).toContain('"redirectTargets"');
    expect(fieldsError(() => parseFields("reviews", App))).toContain('"reviews"');
  });

  it("a sub-field of a scalar is refused", () => {
    expect(fieldsError(() => parseFields("name.x", App))).toContain('"name" has no sub-fields');
    expect(fieldsError(() => parseFields("plans.name.x", App))).toContain('"plans.name" has no sub-fields');
    expect(fieldsError(() => parseFields("categories.x", App))).toContain('"categories"');
  });

  it("* has no sub-fields", () => {
    expect(fieldsError(() => parseFields("*.x", App))).toContain('"*" cannot have sub-fields');
    expect(fieldsError(() => parseFields("plans.*.x", App))).toContain('"plans.*" cannot have sub-fields');
  });

  it("empty path segments are refused", () => {
    for (const s of ["a..b", ".name", "plans.", "plans..name", "name,.", "."]) {
      const m = fieldsError(() => parseFields(s, App));
      expect(m, s).toContain("is not a field path");
    }
  });

  it("uses the option name it is given", () => {
    expect(fieldsError(() => parseFields("nope", App, { option: "x" }))).toMatch(/^x: /);
  });
});

describe("toSelectionSet", () => {
  it("prints a plain and a nested selection", () => {
    expect(printed("name,plans.name", App)).toBe("{\n  name\n  plans {\n    name\n  }\n}");
    expect(printed("id,installs_30d", App)).toBe("{\n  appId\n  installs30d\n}");
  });

  it("prints an object's default sub-fields", () => {
    expect(printed("plans", App)).toBe(
      "{\n  plans {\n    name\n    monthlyCost\n    monthlyCostCents\n  }\n}",
    );
  });

  it("selects a flattened App by its key under `app`, after the InstalledApp's own fields", () => {
    // The App's fields are written from its shared text (src/rest/shared-text.ts).
    expect(printed("apps.name,apps.installed_at,name", Domain)).toBe(
      "{\n  apps {\n    installedAt\n    app {\n      appId\n    }\n  }\n  name\n}",
    );
    expect(printed("apps.id,apps.plans.name", Domain)).toBe(
      "{\n  apps {\n    app {\n      appId\n    }\n  }\n}",
    );
  });

  it("prints a review's app with its four default fields", () => {
    expect(printed("rating,app", AppReview)).toBe(
      "{\n  rating\n  app {\n    appId\n    name\n    appStoreUrl\n    vendorName\n  }\n}",
    );
  });

  it("prints the default App selection without on-request fields", () => {
    const text = printed("", App);
    expect(text).toContain("  appId\n");
    expect(text).toContain("  vendorCountryCode\n");
    expect(text).not.toContain("descriptionLong");
    expect(text).not.toContain("installsTimeSeries");
    expect(text).not.toMatch(/\breviews\b|installedOn|\bid\b/);
  });
});

/** For selections without shared objects: asking for shared text is a fault. */
const NO_SHARED: SharedTexts = {
  text: () => {
    throw new Error("no shared text here");
  },
};

/** Shared text as a snapshot would keep it: each run's fields of `objects[key]`, and what was asked. */
const texts = (objects: Record<string, Record<string, unknown>>) => {
  const asked: { run: SharedRun; key: string }[] = [];
  const source: SharedTexts = {
    text(run, key) {
      asked.push({ run, key });
      const object = objects[key];
      if (!object) return undefined;
      const text = legacyWriter(run.selection)(object, NO_SHARED);
      return text === "{}" ? "" : text.slice(1, -1);
    },
  };
  return { asked, source };
};

describe("legacyWriter", () => {
  /** The legacy object a writer's JSON text holds. */
  const reshape = (data: Record<string, unknown>, sel: Selection) =>
    JSON.parse(legacyWriter(sel)(data, NO_SHARED));

  it("writes the legacy keys in the selection's order, as JSON.stringify writes that object", () => {
    const sel = parseFields("name,installs,categories,plans.name,plans.monthly_cost_cents", App);
    const data = {
      plans: [{ monthlyCostCents: 100, name: 'Pro "plus"' }],
      categories: ["a\u2028b"],
      installs: 12,
      name: "N\n",
    };
    const text = legacyWriter(sel)(data, NO_SHARED);
    expect(text).toBe(
      JSON.stringify({
        name: "N\n",
        installs: 12,
        categories: ["a\u2028b"],
        plans: [{ name: 'Pro "plus"', monthly_cost_cents: 100 }],
      }),
    );
    expect(legacyWriter(sel)({}, NO_SHARED)).toBe("{}");
  });

  it("renames to legacy names and leaves out null and undefined values", () => {
    const sel = parseFields("id,name,installs_30d,vendor_email,vendor_url,removed_at", App);
    expect(
      reshape(
        { appId: "a", name: "N", installs30d: -3, vendorEmail: null, vendorUrl: undefined, extra: 1 },
        sel,
      ),
    ).toEqual({ id: "a", name: "N", installs_30d: -3 });
  });

  it("keeps falsy values that are known: 0, false, empty strings and empty lists", () => {
    const sel = parseFields("installs,name,categories,plans", App);
    const out = reshape({ installs: 0, name: "", categories: [], plans: [] }, sel);
    expect(out).toEqual({ installs: 0, name: "", categories: [], plans: [] });
  });

  it("maps lists of objects, leaving out null sub-fields", () => {
    const sel = parseFields("plans", App);
    expect(
      reshape(
        {
          plans: [
            { name: "Free", monthlyCost: "Free", monthlyCostCents: null },
            { name: "Pro", monthlyCost: "$1", monthlyCostCents: 100 },
          ],
        },
        sel,
      ),
    ).toEqual({
      plans: [
        { name: "Free", monthly_cost: "Free" },
        { name: "Pro", monthly_cost: "$1", monthly_cost_cents: 100 },
      ],
    });
  });

  it("reshapes a single nested object, and leaves out a null one", () => {
    const sel = parseFields("name,theme.name,theme.cost", Domain);
    expect(reshape({ name: "a.com", theme: { name: "Dawn", cost: null } }, sel)).toEqual({
      name: "a.com",
      theme: { name: "Dawn" },
    });
    expect(reshape({ name: "a.com", theme: null }, sel)).toEqual({ name: "a.com" });
  });

  it("keeps scalar JSON values as they are (alternates, keywords)", () => {
    const sel = parseFields("alternates,keywords", Domain);
    expect(reshape({ alternates: { "de-DE": "de.a.com" }, keywords: "a, b" }, sel)).toEqual({
      alternates: { "de-DE": "de.a.com" },
      keywords: "a, b",
    });
  });

  it("flattens a Domain's apps: App fields beside installed_at and removed_at", () => {
    const sel = parseFields("apps.id,apps.name,apps.installed_at,apps.removed_at", Domain);
    const { source } = texts({ a1: { appId: "a1", name: "A" }, a2: { appId: "a2", name: "B" } });
    const data = {
      apps: [
        { installedAt: "2021", removedAt: null, app: { appId: "a1" } },
        { installedAt: "2019", removedAt: "2023", app: { appId: "a2" } },
      ],
    };
    expect(JSON.parse(legacyWriter(sel)(data, source))).toEqual({
      apps: [
        { id: "a1", name: "A", installed_at: "2021" },
        { id: "a2", name: "B", installed_at: "2019", removed_at: "2023" },
      ],
    });
  });
});

describe("shared objects (an installed App, a detected technology)", () => {
  it("selects only the shared object's key under each parent", () => {
    const text = printed(
      "apps.installed_at,apps.name,apps.plans,technologies.name,technologies.installed_at",
      Domain,
    );
    expect(text).toContain("apps {\n    installedAt\n    app {\n      appId\n    }\n  }");
    expect(text).toContain("technologies {\n    installedAt\n    technology {\n      name\n    }\n  }");
    expect(text).not.toMatch(/plans|description/);
  });

  it("writes a technology's fields around installed_at from two runs, in the legacy order", () => {
    const sel = parseFields("technologies", Domain);
    const techs = sel.get("technologies")?.children;
    expect([...(techs?.keys() ?? [])]).toEqual([
      "name",
      "description",
      "vendor_url",
      "icon_url",
      "installed_at",
      "installs",
      "categories",
    ]);
    const { asked, source } = texts({
      GA: { name: "GA", description: "d", vendorUrl: "v", iconUrl: "i", installs: 3, categories: null },
    });
    const data = { technologies: [{ installedAt: "2024-01-02T00:00:00Z", technology: { name: "GA" } }] };
    expect(legacyWriter(sel)(data, source)).toBe(
      '{"technologies":[{"name":"GA","description":"d","vendor_url":"v","icon_url":"i","installed_at":"2024-01-02T00:00:00Z","installs":3}]}',
    );
    expect(asked.map((a) => a.key)).toEqual(["GA", "GA"]);
    const [before, after] = asked.map((a) => a.run);
    expect(before.id).not.toBe(after.id);
    expect([...before.selection.keys()]).toEqual(["name", "description", "vendor_url", "icon_url"]);
    expect([...after.selection.keys()]).toEqual(["installs", "categories"]);
  });

  it("writes an installed App's fields beside installed_at, and leaves out what is not known yet", () => {
    const sel = parseFields("apps.installed_at,apps.name,apps.removed_at,apps.token", Domain);
    const { asked, source } = texts({ a1: { name: "One", token: "one" } });
    const data = {
      apps: [
        { installedAt: "t1", removedAt: null, app: { appId: "a1" } },
        { installedAt: "t2", removedAt: "t3", app: { appId: "a2" } },
      ],
    };
    // removed_at is the InstalledApp's own (the App's is hidden by it); a2's text is not known.
    expect(legacyWriter(sel)(data, source)).toBe(
      '{"apps":[{"installed_at":"t1","name":"One","token":"one"},{"installed_at":"t2","removed_at":"t3"}]}',
    );
    // In the order asked for: name, then the InstalledApp's removed_at, then token (two runs).
    expect(asked.map((a) => a.key)).toEqual(["a1", "a1", "a2", "a2"]);
    expect(asked[0].run.id).not.toBe(asked[1].run.id);
    expect(asked[0].run.id).toBe(asked[2].run.id);
    expect(asked[0].run.shared).toEqual({ type: "App", key: "appId" });
  });

  it("gives equal runs of equal selections one id, and different ones another", () => {
    const run = (spec: string) => {
      const { asked, source } = texts({});
      legacyWriter(parseFields(spec, Domain))({ apps: [{ installedAt: "t", app: { appId: "x" } }] }, source);
      return asked[0].run.id;
    };
    expect(run("apps.name,apps.token")).toBe(run("apps.name , apps.token"));
    expect(run("apps.name,apps.token")).not.toBe(run("apps.token,apps.name"));
    expect(run("apps.name")).not.toBe(run("apps.name,apps.token"));
  });
});

describe("parseFields then legacyWriter (property)", () => {
  /** A value of a GraphQL App field as a result could carry it: null, undefined or known. */
  const nullable = <T>(arb: fc.Arbitrary<T>) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      {
        weight: 3,
        arbitrary: arb,
      },
    );
  const scalar: fc.Arbitrary<unknown> = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.boolean(),
    fc.array(fc.string()),
  );
  const objectOf = (fields: Record<string, string>): fc.Arbitrary<unknown> =>
    fc.array(fc.record(Object.fromEntries(Object.values(fields).map((g) => [g, nullable(scalar)]))), {
      maxLength: 3,
    });
  const result = fc.record(
    Object.fromEntries(
      Object.entries(APP_FIELDS).map(([legacy, g]) => [
        g,
        nullable(
          legacy === "plans"
            ? objectOf(PLAN_FIELDS)
            : legacy === "installs_time_series"
              ? objectOf(POINT_FIELDS)
              : scalar,
        ),
      ]),
    ),
  );
  const subset = fc.shuffledSubarray(APP_LEGACY, { minLength: 1 });
  const spaces = fc.constantFrom("", " ", "  ");

  /** The expected legacy form of a list of plan or point objects. */
  const expectedObjects = (value: unknown, fields: Record<string, string>) =>
    (value as Record<string, unknown>[]).map((o) =>
      Object.fromEntries(
        Object.entries(fields).flatMap(([l, g]) => (o[g] === null || o[g] === undefined ? [] : [[l, o[g]]])),
      ),
    );

  it("yields exactly the named fields whose values are known, under their legacy names", () => {
    fc.assert(
      fc.property(subset, spaces, result, (names, pad, data) => {
        const sel = parseFields(names.map((n) => `${pad}${n}${pad}`).join(","), App, { single: true });
        expect([...sel.keys()].sort()).toEqual([...names].sort());
        const out = JSON.parse(legacyWriter(sel)(data as Record<string, unknown>, NO_SHARED));
        const known = names.filter((n) => data[APP_FIELDS[n]] !== null && data[APP_FIELDS[n]] !== undefined);
        expect(Object.keys(out).sort()).toEqual(known.sort());
        for (const n of known) {
          const v = data[APP_FIELDS[n]];
          // As the wire has them (-0 is written 0).
          const wire = (x: unknown) => JSON.parse(JSON.stringify(x));
          if (n === "plans") expect(out[n]).toEqual(wire(expectedObjects(v, PLAN_FIELDS)));
          else if (n === "installs_time_series")
            expect(out[n]).toEqual(wire(expectedObjects(v, POINT_FIELDS)));
          else expect(out[n]).toEqual(wire(v));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("selectionKey (the cache key of a route's document)", () => {
  const Domain = schema.getType("Domain") as GraphQLObjectType;
  // Regression: the key once covered only two levels, so apps.plans.name and
  // apps.plans.monthly_cost shared a key and the second request got the first's document.
  it("tells selections apart at every depth", () => {
    const specs = ["apps.plans.name", "apps.plans.monthly_cost", "apps.name", "apps", "name", "name,rank"];
    const keys = specs.map((f) => selectionKey(parseFields(f, Domain)));
    expect(new Set(keys).size).toBe(specs.length);
  });

  it("is equal for equal selections, however written", () => {
    expect(selectionKey(parseFields(" name ,rank,name", Domain))).toBe(
      selectionKey(parseFields("name,rank", Domain)),
    );
  });
});
