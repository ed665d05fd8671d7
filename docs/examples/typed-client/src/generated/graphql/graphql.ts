/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** When one App was installed or uninstalled; give min, max or both. */
export type AppEventRange = {
  /** The App, <platform>.<token> (exactly one). */
  app: string;
  max?: string | null | undefined;
  min?: string | null | undefined;
};

/** One term of DomainFilter's and, or or not: it matches when all its given filters match (terms do not nest). */
export type DomainCondition = {
  /** Administrative area (state or province); needs countryCode (f:administrative_area_level_1). */
  administrativeAreaLevel1?: StringListFilter | null | undefined;
  /** Installed the App in the range (f:app_installed_at:min, f:app_installed_at:max). */
  appInstalledAt?: AppEventRange | null | undefined;
  /** Uninstalled the App in the range (f:app_uninstalled_at:min, f:app_uninstalled_at:max). */
  appUninstalledAt?: AppEventRange | null | undefined;
  /** Installed App (<platform>.<token>), not since uninstalled (f:an). */
  apps?: StringListFilter | null | undefined;
  /** Average product price, minor unit of the store currency (f:avgppmin, f:avgppmax). */
  avgPrice?: IntRange | null | undefined;
  /** Category (f:cat). */
  categories?: StringListFilter | null | undefined;
  /** City; needs countryCode and administrativeAreaLevel1 (f:city). */
  city?: StringListFilter | null | undefined;
  /** Contact info type present (f:it). */
  contactTypes?: StringListFilter | null | undefined;
  /** Country code (f:cc). */
  countryCode?: StringListFilter | null | undefined;
  /** Created on/after min and on/before max (f:cratmin, f:cratmax). */
  createdAt?: TimeRange | null | undefined;
  /** Month of creation, YYYY-MM (f:cratyyyymm). */
  createdMonth?: StringListFilter | null | undefined;
  /** Week of creation, YYYY-MM-DD; weeks start on Fridays, other days map to the Friday before (f:cratyyyymmdd). */
  createdWeek?: StringListFilter | null | undefined;
  /** Currency code (f:curr). */
  currencyCode?: StringListFilter | null | undefined;
  /** Employee count (f:empcmin, f:empcmax). */
  employeeCount?: IntRange | null | undefined;
  /** Estimated monthly sales, cents of USD (f:ermin, f:ermax). */
  estimatedSales?: IntRange | null | undefined;
  /** Estimated monthly visits (f:evmin, f:evmax). */
  estimatedVisits?: IntRange | null | undefined;
  /** Feature (f:features). */
  features?: StringListFilter | null | undefined;
  /** Language code (f:lang). */
  languageCode?: StringListFilter | null | undefined;
  /** Last plan change (f:last_plan_change_at:min, f:last_plan_change_at:max). */
  lastPlanChangeAt?: TimeRange | null | undefined;
  /** Last platform change (f:last_platform_change_at:min, f:last_platform_change_at:max). */
  lastPlatformChangeAt?: TimeRange | null | undefined;
  /** In this list of the API key's account (GET /list) (f:list). */
  list?: string | null | undefined;
  /** Monthly app spend, cents of USD (f:masmin, f:masmax). */
  monthlyAppSpend?: IntRange | null | undefined;
  /** Platform plan (f:plan). */
  plan?: StringListFilter | null | undefined;
  /** Platform (f:p). */
  platform?: StringListFilter | null | undefined;
  /** Product count (f:pcmin, f:pcmax). */
  productCount?: IntRange | null | undefined;
  /** World-wide rank (f:rankmin, f:rankmax). */
  rank?: IntRange | null | undefined;
  /** Region (f:reg). */
  region?: StringListFilter | null | undefined;
  /** Sales channel (f:sc). */
  salesChannels?: StringListFilter | null | undefined;
  /** In this segment of the API key's account (GET /segment): its members in the served snapshot (f:segment). */
  segment?: string | null | undefined;
  /** Ships-to country (f:stc). */
  shipsTo?: StringListFilter | null | undefined;
  /** State: Active, Inactive or Password Protected (f:ds). */
  state?: StringListFilter | null | undefined;
  /** Subregion (f:sreg). */
  subregion?: StringListFilter | null | undefined;
  /** Tag (f:tags). */
  tags?: StringListFilter | null | undefined;
  /** Technology name (f:tech). */
  technologies?: StringListFilter | null | undefined;
  /** Technology first detected in the range (f:tech_installed_at:min, f:tech_installed_at:max). */
  technologyInstalledAt?: TechnologyEventRange | null | undefined;
  /** Theme name (f:tn). */
  themeName?: StringListFilter | null | undefined;
};

/** Domain filters (docs/api.md 4.7 and docs/decisions.md); all given filters must match. */
export type DomainFilter = {
  /** Administrative area (state or province); needs countryCode (f:administrative_area_level_1). */
  administrativeAreaLevel1?: StringListFilter | null | undefined;
  /** More filters that must all match too, e.g. the same filter twice (aq). Not nested. */
  and?: Array<DomainCondition> | null | undefined;
  /** Installed the App in the range (f:app_installed_at:min, f:app_installed_at:max). */
  appInstalledAt?: AppEventRange | null | undefined;
  /** Uninstalled the App in the range (f:app_uninstalled_at:min, f:app_uninstalled_at:max). */
  appUninstalledAt?: AppEventRange | null | undefined;
  /** Installed App (<platform>.<token>), not since uninstalled (f:an). */
  apps?: StringListFilter | null | undefined;
  /** Average product price, minor unit of the store currency (f:avgppmin, f:avgppmax). */
  avgPrice?: IntRange | null | undefined;
  /** Category (f:cat). */
  categories?: StringListFilter | null | undefined;
  /** City; needs countryCode and administrativeAreaLevel1 (f:city). */
  city?: StringListFilter | null | undefined;
  /** Contact info type present (f:it). */
  contactTypes?: StringListFilter | null | undefined;
  /** Country code (f:cc). */
  countryCode?: StringListFilter | null | undefined;
  /** Created on/after min and on/before max (f:cratmin, f:cratmax). */
  createdAt?: TimeRange | null | undefined;
  /** Month of creation, YYYY-MM (f:cratyyyymm). */
  createdMonth?: StringListFilter | null | undefined;
  /** Week of creation, YYYY-MM-DD; weeks start on Fridays, other days map to the Friday before (f:cratyyyymmdd). */
  createdWeek?: StringListFilter | null | undefined;
  /** Currency code (f:curr). */
  currencyCode?: StringListFilter | null | undefined;
  /** Employee count (f:empcmin, f:empcmax). */
  employeeCount?: IntRange | null | undefined;
  /** Estimated monthly sales, cents of USD (f:ermin, f:ermax). */
  estimatedSales?: IntRange | null | undefined;
  /** Estimated monthly visits (f:evmin, f:evmax). */
  estimatedVisits?: IntRange | null | undefined;
  /** Feature (f:features). */
  features?: StringListFilter | null | undefined;
  /** Language code (f:lang). */
  languageCode?: StringListFilter | null | undefined;
  /** Last plan change (f:last_plan_change_at:min, f:last_plan_change_at:max). */
  lastPlanChangeAt?: TimeRange | null | undefined;
  /** Last platform change (f:last_platform_change_at:min, f:last_platform_change_at:max). */
  lastPlatformChangeAt?: TimeRange | null | undefined;
  /** In this list of the API key's account (GET /list) (f:list). */
  list?: string | null | undefined;
  /** Monthly app spend, cents of USD (f:masmin, f:masmax). */
  monthlyAppSpend?: IntRange | null | undefined;
  /** Terms none of which may match (bq's must_not). A Domain whose value a term tests is unknown does not match that term, so it matches its negation. Not nested. */
  not?: Array<DomainCondition> | null | undefined;
  /** Terms of which at least one must match, beside the other filters (bq's should): conditions on different filters ORed. At least one term. Not nested. */
  or?: Array<DomainCondition> | null | undefined;
  /** Platform plan (f:plan). */
  plan?: StringListFilter | null | undefined;
  /** Platform (f:p). */
  platform?: StringListFilter | null | undefined;
  /** Product count (f:pcmin, f:pcmax). */
  productCount?: IntRange | null | undefined;
  /** World-wide rank (f:rankmin, f:rankmax). */
  rank?: IntRange | null | undefined;
  /** Region (f:reg). */
  region?: StringListFilter | null | undefined;
  /** Sales channel (f:sc). */
  salesChannels?: StringListFilter | null | undefined;
  /** In this segment of the API key's account (GET /segment): its members in the served snapshot (f:segment). */
  segment?: string | null | undefined;
  /** Ships-to country (f:stc). */
  shipsTo?: StringListFilter | null | undefined;
  /** State: Active, Inactive or Password Protected (f:ds). */
  state?: StringListFilter | null | undefined;
  /** Subregion (f:sreg). */
  subregion?: StringListFilter | null | undefined;
  /** Tag (f:tags). */
  tags?: StringListFilter | null | undefined;
  /** Technology name (f:tech). */
  technologies?: StringListFilter | null | undefined;
  /** Technology first detected in the range (f:tech_installed_at:min, f:tech_installed_at:max). */
  technologyInstalledAt?: TechnologyEventRange | null | undefined;
  /** Theme name (f:tn). */
  themeName?: StringListFilter | null | undefined;
};

/** An inclusive range; give min, max or both. Unknown values never match. */
export type IntRange = {
  max?: number | null | undefined;
  min?: number | null | undefined;
};

/** How the values of a list filter combine (docs/api.md `f:<x>:op`). */
export type ListOp =
  /** Match all of the values (default). */
  | 'AND'
  /** Match not all of the values (aq's nand). */
  | 'NAND'
  /** Match none of the values. */
  | 'NOT'
  /** Match any of the values. */
  | 'OR';

/** Values to match, combined by op. */
export type StringListFilter = {
  op?: ListOp | null | undefined;
  values: Array<string>;
};

/** When one technology was first detected; give min, max or both. */
export type TechnologyEventRange = {
  max?: string | null | undefined;
  min?: string | null | undefined;
  /** The technology's name (exactly one). */
  technology: string;
};

/** An inclusive time range; give min, max or both. A date as max covers that whole day. Unknown values never match. */
export type TimeRange = {
  max?: string | null | undefined;
  min?: string | null | undefined;
};

export type AppInstallsQueryVariables = Exact<{
  platform: string;
  token: string;
  installedOn?: DomainFilter | null | undefined;
  first?: number | null | undefined;
}>;


export type AppInstallsQuery = { app: { name: string, vendorName: string, averageRating: string, reviewCount: number, plans: Array<{ name: string, monthlyCost: string }>, installedOn: { totalCount: number, edges: Array<{ node: { name: string, rank: number, countryCode: string | null, estimatedSales: number | null } }> } } | null };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const AppInstallsDocument = new TypedDocumentString(`
    query AppInstalls($platform: String!, $token: String!, $installedOn: DomainFilter, $first: Int) {
  app(platform: $platform, token: $token) {
    name
    vendorName
    averageRating
    reviewCount
    plans {
      name
      monthlyCost
    }
    installedOn(
      filter: $installedOn
      first: $first
      orderBy: [{field: ESTIMATED_SALES, direction: DESC}]
    ) {
      totalCount
      edges {
        node {
          name
          rank
          countryCode
          estimatedSales
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<AppInstallsQuery, AppInstallsQueryVariables>;