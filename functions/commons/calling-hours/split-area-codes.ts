import type { RuleSource, SplitAreaCode } from './types.ts';

/**
 * NANP area codes whose numbers may ring in more than one time zone. Each lists every zone (the phone data often
 * names only one), and a call starts only when the window is open in all of them. Where a place keeps a clock other
 * than its legal one (a county that follows its neighbour by custom), the clock people keep is listed too: the
 * stricter reading.
 */
const CFR = (section: string, what: string): RuleSource => ({
  law: 'Standard Time Zone Boundaries, 49 CFR Part 71',
  section: `§ ${section} (${what})`,
  url: 'https://www.ecfr.gov/current/title-49/subtitle-A/part-71',
});
const EASTERN_CENTRAL = CFR('71.5', 'boundary line between the Eastern and Central zones');
const CENTRAL_MOUNTAIN = CFR('71.7', 'boundary line between the Central and Mountain zones');
const MOUNTAIN_PACIFIC = CFR('71.9', 'boundary line between the Mountain and Pacific zones');

const idaho: SplitAreaCode = {
  zones: ['America/Boise', 'America/Los_Angeles'],
  source: MOUNTAIN_PACIFIC,
  note: 'northern Idaho (the panhandle, north of the Salmon River) keeps Pacific time; the south Mountain',
};
const oregon: SplitAreaCode = {
  zones: ['America/Los_Angeles', 'America/Boise'],
  source: MOUNTAIN_PACIFIC,
  note: 'most of Malheur County keeps Mountain time; the rest of eastern Oregon Pacific',
};
const floridaPanhandle: SplitAreaCode = {
  zones: ['America/New_York', 'America/Chicago'],
  source: EASTERN_CENTRAL,
  note: 'the panhandle west of the Apalachicola River keeps Central time; Tallahassee and the east Eastern',
};
const kentuckyWest: SplitAreaCode = {
  zones: ['America/Chicago', 'America/New_York'],
  source: EASTERN_CENTRAL,
  note: 'the Eastern/Central line crosses south-central Kentucky; counties of this code lie on both sides',
};
const indianaSouth: SplitAreaCode = {
  zones: ['America/Indiana/Indianapolis', 'America/Chicago'],
  source: EASTERN_CENTRAL,
  note: 'the south-western counties (around Evansville) keep Central time; the rest Eastern',
};
const kansas: SplitAreaCode = {
  zones: ['America/Chicago', 'America/Denver'],
  source: CENTRAL_MOUNTAIN,
  note: 'four western counties (Sherman, Wallace, Greeley, Hamilton) keep Mountain time; the rest Central',
};
const tennessee: SplitAreaCode = {
  zones: ['America/New_York', 'America/Chicago'],
  source: EASTERN_CENTRAL,
  note: 'the Eastern/Central line runs along the Cumberland Plateau; counties of this code lie on both sides',
};
const westTexas: SplitAreaCode = {
  zones: ['America/Chicago', 'America/Denver'],
  source: CENTRAL_MOUNTAIN,
  note: 'Culberson County is legally Central but largely keeps Mountain time by custom; the stricter reading keeps both',
};
const BC: RuleSource = {
  law: 'Interpretation Act, R.S.B.C. 1996, c. 238',
  section: 's. 25 (standard time) and the Time Regulations for the East Kootenay and Peace River areas',
};
const britishColumbia: SplitAreaCode = {
  zones: ['America/Vancouver', 'America/Edmonton', 'America/Creston', 'America/Dawson_Creek', 'America/Fort_Nelson'],
  source: BC,
  note: 'the East Kootenay keeps Mountain time, Creston, Dawson Creek and Fort Nelson Mountain Standard all year; the rest Pacific',
};
const saskatchewan: SplitAreaCode = {
  zones: ['America/Regina', 'America/Edmonton'],
  source: { law: 'The Time Act, S.S. 1978, c. T-14', section: 's. 3 and s. 7 (Lloydminster)' },
  note: 'Saskatchewan keeps Central Standard time all year; Lloydminster keeps Alberta (Mountain) time',
};
const quebecEast: SplitAreaCode = {
  zones: ['America/Toronto', 'America/Halifax', 'America/Blanc-Sablon'],
  source: { law: 'Act respecting legal time, CQLR c. T-5.1', section: 'ss. 1-2' },
  note: 'the Magdalen Islands keep Atlantic time and the Lower North Shore east of 63° W Atlantic Standard all year; the rest Eastern',
};

export const SPLIT_AREA_CODES: Readonly<Record<string, SplitAreaCode>> = {
  '208': idaho,
  '986': idaho,
  '541': oregon,
  '458': oregon,
  '850': floridaPanhandle,
  '448': floridaPanhandle,
  '907': {
    zones: ['America/Anchorage', 'America/Adak'],
    source: CFR('71.11 and § 71.12', 'Alaska and Hawaii-Aleutian zones'),
    note: 'the Aleutian Islands west of 169°30′ W keep Hawaii-Aleutian time; the rest of Alaska Alaska time',
  },
  '270': kentuckyWest,
  '364': kentuckyWest,
  '606': {
    zones: ['America/New_York', 'America/Chicago'],
    source: EASTERN_CENTRAL,
    note: 'Wayne, Clinton and neighbouring counties of south-eastern Kentucky keep Central time; the rest Eastern',
  },
  '423': tennessee,
  '931': tennessee,
  '219': {
    zones: ['America/Chicago', 'America/Indiana/Indianapolis'],
    source: EASTERN_CENTRAL,
    note: 'Lake, Porter, LaPorte, Newton and Jasper counties of north-western Indiana keep Central time; Pulaski County Eastern',
  },
  '812': indianaSouth,
  '930': indianaSouth,
  '574': {
    zones: ['America/Indiana/Indianapolis', 'America/Indiana/Knox'],
    source: EASTERN_CENTRAL,
    note: 'Starke County keeps Central time; the rest of the area Eastern',
  },
  '906': {
    zones: ['America/Detroit', 'America/Menominee'],
    source: EASTERN_CENTRAL,
    note: 'the four Upper Peninsula counties bordering Wisconsin (Gogebic, Iron, Dickinson, Menominee) keep Central time',
  },
  '334': {
    zones: ['America/Chicago', 'America/New_York'],
    source: EASTERN_CENTRAL,
    note: 'Phenix City and nearby Alabama towns keep Eastern time by custom (Columbus, GA); the stricter reading keeps both',
  },
  '620': kansas,
  '785': kansas,
  '308': {
    zones: ['America/Chicago', 'America/Denver'],
    source: CENTRAL_MOUNTAIN,
    note: 'the Nebraska panhandle and south-western counties keep Mountain time; the rest Central',
  },
  '605': {
    zones: ['America/Chicago', 'America/Denver'],
    source: CENTRAL_MOUNTAIN,
    note: 'western South Dakota (west of the Missouri, roughly) keeps Mountain time; the east Central',
  },
  '701': {
    zones: ['America/Chicago', 'America/Denver'],
    source: CENTRAL_MOUNTAIN,
    note: 'south-western North Dakota keeps Mountain time; the rest Central',
  },
  '432': westTexas,
  '915': {
    zones: ['America/Denver', 'America/Chicago'],
    source: CENTRAL_MOUNTAIN,
    note: 'El Paso and Hudspeth counties keep Mountain time; some listings put Culberson County (legally Central) in this code too, so the stricter reading keeps both',
  },
  '775': {
    zones: ['America/Los_Angeles', 'America/Denver'],
    source: MOUNTAIN_PACIFIC,
    note: 'West Wendover (Elko County) keeps Mountain time; the rest of northern Nevada Pacific',
  },
  '928': {
    zones: ['America/Phoenix', 'America/Denver'],
    source: {
      law: 'Arizona Revised Statutes',
      section: '§ 1-242 (no daylight saving time); the Navajo Nation observes it',
    },
    note: 'Arizona keeps Mountain Standard time all year, but the Navajo Nation keeps daylight saving time',
  },
  '250': britishColumbia,
  '236': britishColumbia,
  '778': britishColumbia,
  '672': britishColumbia,
  '257': britishColumbia, // the province-wide overlay
  '306': saskatchewan,
  '639': saskatchewan,
  '474': saskatchewan,
  '807': {
    zones: ['America/Toronto', 'America/Winnipeg', 'America/Atikokan'],
    source: { law: 'Time Act, R.S.O. 1990, c. T.9', section: 's. 1-2' },
    note: 'north-western Ontario west of 90° W keeps Central time and Atikokan Eastern Standard all year; the rest Eastern',
  },
  '418': quebecEast,
  '581': quebecEast,
  '367': quebecEast,
  '709': {
    zones: ['America/St_Johns', 'America/Goose_Bay'],
    source: { law: 'Standard Time Act, R.S.N.L. 1990, c. S-24', section: 's. 2' },
    note: 'Labrador (but its south-east coast) keeps Atlantic time; the island Newfoundland time',
  },
  '879': {
    zones: ['America/St_Johns', 'America/Goose_Bay'],
    source: { law: 'Standard Time Act, R.S.N.L. 1990, c. S-24', section: 's. 2' },
    note: 'the overlay of 709: Labrador (but its south-east coast) keeps Atlantic time; the island Newfoundland time',
  },
  '867': {
    zones: [
      'America/Whitehorse',
      'America/Edmonton',
      'America/Iqaluit',
      'America/Rankin_Inlet',
      'America/Cambridge_Bay',
    ],
    source: {
      law: 'Interpretation Acts of Yukon, the Northwest Territories and Nunavut',
      section: 'standard time provisions',
    },
    note: 'one code for three territories: Yukon Mountain Standard all year, the Northwest Territories Mountain, Nunavut Eastern, Central and Mountain',
  },
};
