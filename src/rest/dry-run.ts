/**
 * `dry_run` of a whole result, Export Domains' or a cursor=all job's (answered by
 * src/export/estimate.ts where the export or the job would start; docs/decisions.md, "Dry runs").
 * An option as src/rest/inputs.ts lists them (its OptionDoc).
 */
export const DRY_RUN = (what: string) => ({
  name: "dry_run",
  type: "boolean" as const,
  description: `true: answer, without starting ${what}, how many Domains it would write, an estimate of its bytes (plain and gzip, from a sample of its Domains as written) and what starting it would draw (the per-minute budget, the month's count); draws once on List Domains instead.`,
});
