import type { Country } from "./countries.ts";

// The shapes of generated parts that the showcase records fix by hand and the generator draws:
// here, below both, so that neither imports the other.

/** Who a Domain is: its DNS names and merchant, a pure function of (seed, index). */
export interface Identity {
  name: string;
  tld1: string;
  /** `bluepeakgoods` in `bluepeakgoods.com`; unique per index. */
  base: string;
  /** `blue-peak-goods`, for platform domains and social handles; unique per index. */
  handle: string;
  merchantName: string;
  /** Absent for stores selling to many countries. */
  country?: Country;
}

export interface Plan {
  name: string;
  monthly_cost: string;
  monthly_cost_cents?: number;
}

export interface Vendor {
  name: string;
  slug: string;
  countryCode: string;
  address: string;
}
