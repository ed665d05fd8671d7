/**
 * Countries with consistent currency, language, region, subregion, administrative areas, cities
 * and coordinates. `areas` is compact text: `Area:City@lat,lon;City@lat,lon|Area:...`.
 */

export interface City {
  name: string;
  lat: number;
  lon: number;
}
export interface Area {
  name: string;
  cities: City[];
}
export interface Country {
  code: string;
  currency: string;
  language: string;
  region: string;
  subregion: string;
  /** Relative share of the stores that name a country. */
  weight: number;
  /** Registrable suffixes the country's stores use besides `com`. */
  tlds: string[];
  phone: string;
  /** `#` is a digit, `@` an upper-case letter. */
  postal: string;
  areas: Area[];
}

type Row = [string, string, string, string, string, number, string, string, string, string];

// biome-ignore format: one country a line reads best
const ROWS: Row[] = [
  ["US", "USD", "en", "Americas", "Northern America", 55, "us", "+1", "#####", "California:Los Angeles@34.05,-118.24;San Francisco@37.77,-122.42;San Diego@32.72,-117.16|New York:New York@40.71,-74.01;Brooklyn@40.68,-73.94;Buffalo@42.89,-78.88|Texas:Austin@30.27,-97.74;Houston@29.76,-95.37;Dallas@32.78,-96.8|Florida:Miami@25.76,-80.19;Orlando@28.54,-81.38;Tampa@27.95,-82.46|Illinois:Chicago@41.88,-87.63|Washington:Seattle@47.61,-122.33;Spokane@47.66,-117.43|Colorado:Denver@39.74,-104.99;Boulder@40.01,-105.27|Georgia:Atlanta@33.75,-84.39|Utah:Salt Lake City@40.76,-111.89;Provo@40.23,-111.66|Oregon:Portland@45.52,-122.68|Massachusetts:Boston@42.36,-71.06|Tennessee:Nashville@36.16,-86.78"],
  ["CA", "CAD", "en", "Americas", "Northern America", 6, "ca", "+1", "@#@ #@#", "Ontario:Toronto@43.65,-79.38;Ottawa@45.42,-75.7|British Columbia:Vancouver@49.28,-123.12;Victoria@48.43,-123.37|Quebec:Montreal@45.5,-73.57|Alberta:Calgary@51.05,-114.07;Edmonton@53.55,-113.49"],
  ["GB", "GBP", "en", "Europe", "Northern Europe", 8, "co.uk", "+44", "@@# #@@", "England:London@51.51,-0.13;Manchester@53.48,-2.24;Bristol@51.45,-2.59;Leeds@53.8,-1.55|Scotland:Edinburgh@55.95,-3.19;Glasgow@55.86,-4.25|Wales:Cardiff@51.48,-3.18|Northern Ireland:Belfast@54.6,-5.93"],
  ["AU", "AUD", "en", "Oceania", "Australia and New Zealand", 6, "com.au", "+61", "####", "New South Wales:Sydney@-33.87,151.21;Newcastle@-32.93,151.78|Victoria:Melbourne@-37.81,144.96;Geelong@-38.15,144.36|Queensland:Brisbane@-27.47,153.03;Gold Coast@-28.02,153.4|Western Australia:Perth@-31.95,115.86"],
  ["NZ", "NZD", "en", "Oceania", "Australia and New Zealand", 1, "co.nz", "+64", "####", "Auckland:Auckland@-36.85,174.76|Wellington:Wellington@-41.29,174.78|Canterbury:Christchurch@-43.53,172.64"],
  ["DE", "EUR", "de", "Europe", "Western Europe", 4, "de", "+49", "#####", "Berlin:Berlin@52.52,13.4|Bavaria:Munich@48.14,11.58;Nuremberg@49.45,11.08|Hamburg:Hamburg@53.55,9.99|North Rhine-Westphalia:Cologne@50.94,6.96;Düsseldorf@51.23,6.77"],
  ["FR", "EUR", "fr", "Europe", "Western Europe", 2.5, "fr", "+33", "#####", "Île-de-France:Paris@48.86,2.35|Auvergne-Rhône-Alpes:Lyon@45.76,4.84|Provence-Alpes-Côte d'Azur:Marseille@43.3,5.37;Nice@43.7,7.27|Occitanie:Toulouse@43.6,1.44"],
  ["NL", "EUR", "nl", "Europe", "Western Europe", 2, "nl", "+31", "#### @@", "North Holland:Amsterdam@52.37,4.9;Haarlem@52.39,4.65|South Holland:Rotterdam@51.92,4.48;The Hague@52.07,4.3|Utrecht:Utrecht@52.09,5.12"],
  ["BE", "EUR", "nl", "Europe", "Western Europe", 0.7, "be", "+32", "####", "Flanders:Antwerp@51.22,4.4;Ghent@51.05,3.72|Brussels:Brussels@50.85,4.35|Wallonia:Liège@50.63,5.57"],
  ["IT", "EUR", "it", "Europe", "Southern Europe", 1.5, "it", "+39", "#####", "Lombardy:Milan@45.46,9.19|Lazio:Rome@41.9,12.5|Tuscany:Florence@43.77,11.26|Campania:Naples@40.85,14.27"],
  ["ES", "EUR", "es", "Europe", "Southern Europe", 1.5, "es", "+34", "#####", "Community of Madrid:Madrid@40.42,-3.7|Catalonia:Barcelona@41.39,2.17|Andalusia:Seville@37.39,-5.98;Málaga@36.72,-4.42|Valencian Community:Valencia@39.47,-0.38"],
  ["PT", "EUR", "pt", "Europe", "Southern Europe", 0.4, "pt", "+351", "####-###", "Lisbon:Lisbon@38.72,-9.14|Porto:Porto@41.15,-8.61"],
  ["IE", "EUR", "en", "Europe", "Northern Europe", 0.7, "ie", "+353", "@## @@@@", "Leinster:Dublin@53.35,-6.26|Munster:Cork@51.9,-8.47;Limerick@52.66,-8.63"],
  ["AT", "EUR", "de", "Europe", "Western Europe", 0.6, "at", "+43", "####", "Vienna:Vienna@48.21,16.37|Salzburg:Salzburg@47.81,13.04|Tyrol:Innsbruck@47.27,11.4"],
  ["FI", "EUR", "fi", "Europe", "Northern Europe", 0.4, "fi", "+358", "#####", "Uusimaa:Helsinki@60.17,24.94;Espoo@60.21,24.66|Pirkanmaa:Tampere@61.5,23.76"],
  ["SE", "SEK", "sv", "Europe", "Northern Europe", 1, "se", "+46", "### ##", "Stockholm County:Stockholm@59.33,18.07|Västra Götaland County:Gothenburg@57.71,11.97|Skåne County:Malmö@55.6,13"],
  ["NO", "NOK", "nb", "Europe", "Northern Europe", 0.6, "no", "+47", "####", "Oslo:Oslo@59.91,10.75|Vestland:Bergen@60.39,5.32|Trøndelag:Trondheim@63.43,10.4"],
  ["DK", "DKK", "da", "Europe", "Northern Europe", 0.6, "dk", "+45", "####", "Capital Region:Copenhagen@55.68,12.57|Central Denmark Region:Aarhus@56.16,10.2"],
  ["CH", "CHF", "de", "Europe", "Western Europe", 0.7, "ch", "+41", "####", "Zurich:Zurich@47.38,8.54;Winterthur@47.5,8.72|Geneva:Geneva@46.2,6.14|Bern:Bern@46.95,7.45"],
  ["PL", "PLN", "pl", "Europe", "Eastern Europe", 0.8, "pl", "+48", "##-###", "Masovian:Warsaw@52.23,21.01|Lesser Poland:Kraków@50.06,19.94|Pomeranian:Gdańsk@54.35,18.65"],
  ["CZ", "CZK", "cs", "Europe", "Eastern Europe", 0.4, "cz", "+420", "### ##", "Prague:Prague@50.08,14.44|South Moravian:Brno@49.2,16.61"],
  ["JP", "JPY", "ja", "Asia", "Eastern Asia", 1, "jp", "+81", "###-####", "Tokyo:Tokyo@35.68,139.69|Osaka:Osaka@34.69,135.5|Kanagawa:Yokohama@35.44,139.64|Fukuoka:Fukuoka@33.59,130.4"],
  ["KR", "KRW", "ko", "Asia", "Eastern Asia", 0.4, "co.kr", "+82", "#####", "Seoul:Seoul@37.57,126.98|Busan:Busan@35.18,129.08"],
  ["HK", "HKD", "zh", "Asia", "Eastern Asia", 0.5, "com.hk", "+852", "", "Hong Kong Island:Central@22.28,114.16|Kowloon:Kowloon@22.32,114.17"],
  ["SG", "SGD", "en", "Asia", "South-Eastern Asia", 0.6, "sg", "+65", "######", "Singapore:Singapore@1.35,103.82"],
  ["IN", "INR", "en", "Asia", "Southern Asia", 1.5, "in", "+91", "######", "Maharashtra:Mumbai@19.08,72.88;Pune@18.52,73.86|Karnataka:Bengaluru@12.97,77.59|Delhi:New Delhi@28.61,77.21|Tamil Nadu:Chennai@13.08,80.27"],
  ["AE", "AED", "ar", "Asia", "Western Asia", 0.6, "ae", "+971", "", "Dubai:Dubai@25.2,55.27|Abu Dhabi:Abu Dhabi@24.45,54.38"],
  ["IL", "ILS", "he", "Asia", "Western Asia", 0.4, "co.il", "+972", "#######", "Tel Aviv District:Tel Aviv@32.09,34.78|Jerusalem District:Jerusalem@31.77,35.21"],
  ["TR", "TRY", "tr", "Asia", "Western Asia", 0.3, "com.tr", "+90", "#####", "Istanbul:Istanbul@41.01,28.98|Ankara:Ankara@39.93,32.86"],
  ["BR", "BRL", "pt", "Americas", "South America", 1.5, "com.br", "+55", "#####-###", "São Paulo:São Paulo@-23.55,-46.63;Campinas@-22.91,-47.06|Rio de Janeiro:Rio de Janeiro@-22.91,-43.17|Minas Gerais:Belo Horizonte@-19.92,-43.94"],
  ["MX", "MXN", "es", "Americas", "Central America", 0.8, "com.mx", "+52", "#####", "Mexico City:Mexico City@19.43,-99.13|Jalisco:Guadalajara@20.66,-103.35|Nuevo León:Monterrey@25.69,-100.32"],
  ["ZA", "ZAR", "en", "Africa", "Southern Africa", 0.6, "co.za", "+27", "####", "Western Cape:Cape Town@-33.92,18.42|Gauteng:Johannesburg@-26.2,28.05;Pretoria@-25.75,28.19|KwaZulu-Natal:Durban@-29.86,31.02"],
];

function parseAreas(text: string): Area[] {
  return text.split("|").map((part) => {
    const [name, cityText] = part.split(":");
    const cities = cityText.split(";").map((c) => {
      const [cityName, coords] = c.split("@");
      const [lat, lon] = coords.split(",").map(Number);
      return { name: cityName, lat, lon };
    });
    return { name, cities };
  });
}

export const COUNTRIES: readonly Country[] = ROWS.map(
  ([code, currency, language, region, subregion, weight, tld, phone, postal, areas]) => ({
    code,
    currency,
    language,
    region,
    subregion,
    weight,
    tlds: [tld],
    phone,
    postal,
    areas: parseAreas(areas),
  }),
);

export const COUNTRY_CODES: readonly string[] = COUNTRIES.map((c) => c.code);

export interface Currency {
  /** USD per unit of the currency. */
  usd: number;
  /** Digits after the decimal point of the minor unit. */
  decimals: number;
  prefix: string;
  suffix: string;
  decimalComma: boolean;
}

// biome-ignore format: a table
export const CURRENCIES: Readonly<Record<string, Currency>> = {
  USD: { usd: 1, decimals: 2, prefix: "$", suffix: "", decimalComma: false },
  CAD: { usd: 0.73, decimals: 2, prefix: "$", suffix: " CAD", decimalComma: false },
  GBP: { usd: 1.27, decimals: 2, prefix: "£", suffix: "", decimalComma: false },
  AUD: { usd: 0.66, decimals: 2, prefix: "$", suffix: " AUD", decimalComma: false },
  NZD: { usd: 0.6, decimals: 2, prefix: "$", suffix: " NZD", decimalComma: false },
  EUR: { usd: 1.08, decimals: 2, prefix: "€", suffix: "", decimalComma: true },
  SEK: { usd: 0.095, decimals: 2, prefix: "", suffix: " kr", decimalComma: true },
  NOK: { usd: 0.093, decimals: 2, prefix: "", suffix: " kr", decimalComma: true },
  DKK: { usd: 0.145, decimals: 2, prefix: "", suffix: " kr.", decimalComma: true },
  CHF: { usd: 1.12, decimals: 2, prefix: "CHF ", suffix: "", decimalComma: false },
  PLN: { usd: 0.25, decimals: 2, prefix: "", suffix: " zł", decimalComma: true },
  CZK: { usd: 0.043, decimals: 2, prefix: "", suffix: " Kč", decimalComma: true },
  JPY: { usd: 0.0067, decimals: 0, prefix: "¥", suffix: "", decimalComma: false },
  KRW: { usd: 0.00074, decimals: 0, prefix: "₩", suffix: "", decimalComma: false },
  HKD: { usd: 0.128, decimals: 2, prefix: "HK$", suffix: "", decimalComma: false },
  SGD: { usd: 0.74, decimals: 2, prefix: "S$", suffix: "", decimalComma: false },
  INR: { usd: 0.012, decimals: 2, prefix: "₹", suffix: "", decimalComma: false },
  AED: { usd: 0.27, decimals: 2, prefix: "", suffix: " AED", decimalComma: false },
  ILS: { usd: 0.27, decimals: 2, prefix: "₪", suffix: "", decimalComma: false },
  TRY: { usd: 0.031, decimals: 2, prefix: "₺", suffix: "", decimalComma: true },
  BRL: { usd: 0.2, decimals: 2, prefix: "R$ ", suffix: "", decimalComma: true },
  MXN: { usd: 0.058, decimals: 2, prefix: "$", suffix: " MXN", decimalComma: false },
  ZAR: { usd: 0.054, decimals: 2, prefix: "R", suffix: "", decimalComma: false },
};

/** Formats an amount in minor units, e.g. 2499 USD → `$24.99`, 2499 EUR → `€24,99`, 2499 JPY → `¥2,499`. */
export function formatPrice(minor: number, currencyCode: string): string {
  const c = CURRENCIES[currencyCode];
  const scale = 10 ** c.decimals;
  const whole = Math.floor(minor / scale);
  const frac = c.decimals > 0 ? String(minor % scale).padStart(c.decimals, "0") : "";
  const group = c.decimalComma ? "." : ",";
  const wholeText = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const number = frac ? `${wholeText}${c.decimalComma ? "," : "."}${frac}` : wholeText;
  return `${c.prefix}${number}${c.suffix}`;
}
