/** The simulated data centers an endpoint's `locations` may name, and where its workers are placed. */

/** Data centers `locations` may name (by id or by country code). The first is the default. */
export const DATA_CENTERS: readonly { id: string; country: string; location: string }[] = [
  { id: 'US-TX-3', country: 'US', location: 'United States' },
  { id: 'US-GA-1', country: 'US', location: 'United States' },
  { id: 'US-IL-1', country: 'US', location: 'United States' },
  { id: 'CA-MTL-1', country: 'CA', location: 'Canada' },
  { id: 'EU-RO-1', country: 'RO', location: 'Romania' },
  { id: 'EU-CZ-1', country: 'CZ', location: 'Czech Republic' },
  { id: 'EU-FR-1', country: 'FR', location: 'France' },
  { id: 'EU-NL-1', country: 'NL', location: 'Netherlands' },
  { id: 'EU-SE-1', country: 'SE', location: 'Sweden' },
  { id: 'EUR-NO-1', country: 'NO', location: 'Norway' },
  { id: 'EUR-IS-1', country: 'IS', location: 'Iceland' },
  { id: 'EU-GB-1', country: 'GB', location: 'United Kingdom' },
  { id: 'AP-JP-1', country: 'JP', location: 'Japan' },
  { id: 'OC-AU-1', country: 'AU', location: 'Australia' },
  // The rest of the ids the REST reference (dataCenterIds) and Flash (locations) name.
  ...[
    'US-CA-2',
    'US-DE-1',
    'US-GA-2',
    'US-KS-2',
    'US-KS-3',
    'US-MO-1',
    'US-MO-2',
    'US-NC-1',
    'US-NC-2',
    'US-NE-1',
    'US-TX-1',
    'US-TX-4',
    'US-WA-1',
  ].map((id) => ({ id, country: 'US', location: 'United States' })),
  ...['CA-MTL-2', 'CA-MTL-3'].map((id) => ({ id, country: 'CA', location: 'Canada' })),
  ...['EUR-IS-2', 'EUR-IS-3'].map((id) => ({ id, country: 'IS', location: 'Iceland' })),
];

/** The tokens of `locations` that name no known data center or country (empty: all valid). */
export function unknownLocations(locations: string): string[] {
  return splitList(locations).filter((l) => !DATA_CENTERS.some((d) => d.id === l || d.country === l));
}

/** Where a worker of an endpoint with these `locations` is placed: the first matching data center. */
export function placeIn(locations: string): (typeof DATA_CENTERS)[number] {
  const wanted = splitList(locations);
  return (
    DATA_CENTERS.find((d) => wanted.length === 0 || wanted.includes(d.id) || wanted.includes(d.country)) ??
    DATA_CENTERS[0]!
  );
}

function splitList(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
