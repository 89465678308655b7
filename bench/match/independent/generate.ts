// An evaluation set for the sanctions matcher written from the list files and a description of how US motor carriers
// name themselves, without reading the matcher, its normaliser or its tables. It writes, deterministically (seeded):
//   generated-tune.txt, generated-heldout.txt   carrier legal names, one per line (innocent by construction)
//   planted-tune.jsonl, planted-heldout.jsonl   listed parties written as a carrier would write them, one JSON per line
// The halves are split by listed party (every variant of one entry lands in the same half) and by generator stream, so
// tuning on one half never sees the other. Usage: node --import tsx bench/match/independent/generate.ts [shared dir]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const shared = resolve(process.argv[2] ?? join(here, '../../../../shared'));

/** mulberry32: a small, fast, seeded PRNG so the files are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const chance = (r: Rand, p: number): boolean => r() < p;

/** OFAC's legacy CSV: every field quoted or the literal -0-, no header. */
function parseCsvLine(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i += 1;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') { value += '"'; i += 2; continue; }
        if (line[i] === '"') { i += 1; break; }
        value += line[i]; i += 1;
      }
      out.push(value);
      while (i < line.length && line[i] !== ',') i += 1;
      i += 1;
    } else {
      const end = line.indexOf(',', i);
      const stop = end === -1 ? line.length : end;
      out.push(line.slice(i, stop).trim());
      i = stop + 1;
    }
  }
  return out;
}
const readRows = (path: string): string[][] =>
  readFileSync(path, 'latin1').split(/\r?\n/).filter((l) => l.trim() !== '' && l.charCodeAt(0) !== 0x1a).map(parseCsvLine);

// ---------------------------------------------------------------------------------------------------------------
// How carriers name themselves: owner names, places, invented brands, initials, numbers, families, aspirations,
// followed by a carrier word and a legal form. Owner-operators are often registered under their own name.
// ---------------------------------------------------------------------------------------------------------------
const given = [
  'JAMES', 'JOHN', 'ROBERT', 'MICHAEL', 'WILLIAM', 'DAVID', 'RICHARD', 'JOSEPH', 'THOMAS', 'CHARLES', 'CHRISTOPHER',
  'DANIEL', 'MATTHEW', 'ANTHONY', 'MARK', 'DONALD', 'STEVEN', 'PAUL', 'ANDREW', 'JOSHUA', 'KENNETH', 'KEVIN', 'BRIAN',
  'GEORGE', 'TIMOTHY', 'RONALD', 'JASON', 'EDWARD', 'JEFFREY', 'RYAN', 'JACOB', 'GARY', 'NICHOLAS', 'ERIC', 'JONATHAN',
  'STEPHEN', 'LARRY', 'JUSTIN', 'SCOTT', 'BRANDON', 'BENJAMIN', 'SAMUEL', 'GREGORY', 'FRANK', 'RAYMOND', 'DENNIS',
  'TERRY', 'JERRY', 'TYRONE', 'DARNELL', 'MARCUS', 'ANDRE', 'DESHAWN', 'LATOYA', 'SHANICE', 'MARY', 'PATRICIA',
  'JENNIFER', 'LINDA', 'ELIZABETH', 'BARBARA', 'SUSAN', 'JESSICA', 'SARAH', 'KAREN', 'LISA', 'NANCY', 'BETTY',
  'JOSE', 'JUAN', 'LUIS', 'CARLOS', 'JESUS', 'MIGUEL', 'PEDRO', 'ALEJANDRO', 'FRANCISCO', 'ANTONIO', 'RAFAEL',
  'MANUEL', 'RICARDO', 'JORGE', 'FERNANDO', 'EDUARDO', 'ROBERTO', 'SERGIO', 'OSCAR', 'RAUL', 'HECTOR', 'JAVIER',
  'MARIA', 'GUADALUPE', 'ROSA', 'ANA', 'YESENIA', 'ARMANDO', 'ALFREDO', 'RAMON', 'ENRIQUE', 'GERARDO', 'ISMAEL',
  'GURPREET', 'HARPREET', 'JASWINDER', 'MANPREET', 'SUKHWINDER', 'BALJIT', 'KULDEEP', 'RAJINDER', 'AMARJIT',
  'HARJIT', 'PARAMJIT', 'NAVDEEP', 'RAJ', 'VIKRAM', 'SANJAY', 'RAVI', 'AMIT',
  'MOHAMED', 'MOHAMMED', 'MUHAMMAD', 'AHMED', 'ALI', 'HASSAN', 'HUSSEIN', 'OMAR', 'ABDI', 'ABDULLAHI', 'YUSUF',
  'IBRAHIM', 'KHALID', 'MAHMOUD', 'SAMIR', 'FARAH', 'MUSTAFA', 'ABDIRAHMAN', 'HAMZA', 'TAREK', 'NABIL', 'KARIM',
  'IVAN', 'SERGEY', 'SERGII', 'OLEKSANDR', 'VOLODYMYR', 'DMITRY', 'ANDRII', 'VIKTOR', 'YURIY', 'MYKOLA', 'ALEKSANDR',
  'VLADIMIR', 'PAVEL', 'ROMAN', 'NIKOLAI', 'BOGDAN', 'ADNAN', 'EMIR', 'SEAD', 'MIRSAD', 'DRAGAN', 'GORAN', 'MILAN',
  'NGUYEN', 'TUAN', 'MINH', 'HUNG', 'DUC', 'BAO', 'TESFAYE', 'GIRMA', 'DAWIT', 'SOLOMON', 'YOHANNES', 'MULUGETA',
  'CHUKWUEMEKA', 'OLUWASEUN', 'EMEKA', 'KWAME', 'KOFI', 'JEAN', 'PIERRE', 'JEAN-CLAUDE', 'WILNER', 'REGINALD',
];
const family = [
  'SMITH', 'JOHNSON', 'WILLIAMS', 'BROWN', 'JONES', 'MILLER', 'DAVIS', 'WILSON', 'ANDERSON', 'TAYLOR', 'THOMAS',
  'MOORE', 'JACKSON', 'MARTIN', 'THOMPSON', 'WHITE', 'HARRIS', 'CLARK', 'LEWIS', 'ROBINSON', 'WALKER', 'YOUNG',
  'ALLEN', 'KING', 'WRIGHT', 'HILL', 'SCOTT', 'GREEN', 'ADAMS', 'BAKER', 'NELSON', 'CARTER', 'MITCHELL', 'ROBERTS',
  'TURNER', 'PHILLIPS', 'CAMPBELL', 'PARKER', 'EVANS', 'EDWARDS', 'COLLINS', 'STEWART', 'MORRIS', 'MURPHY', 'COOK',
  'ROGERS', 'MORGAN', 'COOPER', 'PETERSON', 'REED', 'BAILEY', 'BELL', 'KELLY', 'HOWARD', 'WARD', 'COX', 'RICHARDSON',
  'WOOD', 'WATSON', 'BROOKS', 'BENNETT', 'GRAY', 'JAMES', 'HUGHES', 'PRICE', 'SANDERS', 'MYERS', 'LONG', 'ROSS',
  'FOSTER', 'POWELL', 'JENKINS', 'PERRY', 'RUSSELL', 'SULLIVAN', 'FISHER', 'HENDERSON', 'COLEMAN', 'SIMMONS',
  'GARCIA', 'RODRIGUEZ', 'MARTINEZ', 'HERNANDEZ', 'LOPEZ', 'GONZALEZ', 'PEREZ', 'SANCHEZ', 'RAMIREZ', 'TORRES',
  'FLORES', 'RIVERA', 'GOMEZ', 'DIAZ', 'CRUZ', 'REYES', 'MORALES', 'ORTIZ', 'GUTIERREZ', 'CHAVEZ', 'RAMOS',
  'MENDOZA', 'RUIZ', 'ALVAREZ', 'CASTILLO', 'JIMENEZ', 'MORENO', 'ROMERO', 'HERRERA', 'MEDINA', 'AGUILAR', 'VARGAS',
  'CASTRO', 'GUZMAN', 'SALAZAR', 'FUENTES', 'CONTRERAS', 'ESPINOZA', 'VASQUEZ', 'ROJAS', 'ZAMORA', 'OCHOA',
  'SINGH', 'KAUR', 'GILL', 'SANDHU', 'SIDHU', 'DHILLON', 'GREWAL', 'BRAR', 'MANN', 'SANGHA', 'BAINS', 'RANDHAWA',
  'PATEL', 'SHAH', 'SHARMA', 'KUMAR', 'ALI', 'KHAN', 'AHMED', 'HASSAN', 'MOHAMED', 'HUSSEIN', 'ABDI', 'WARSAME',
  'OSMAN', 'JAMA', 'ISMAIL', 'YUSUF', 'NUR', 'SALEH', 'HAMDAN', 'HADDAD', 'NASSER', 'KHOURY', 'MANSOUR',
  'PETROV', 'IVANOV', 'SMIRNOV', 'KOVALENKO', 'SHEVCHENKO', 'BONDARENKO', 'TKACHENKO', 'MELNYK', 'KRAVCHENKO',
  'POPESCU', 'NOVAK', 'KOWALSKI', 'NOWAK', 'HODZIC', 'BEGIC', 'HADZIC', 'KOVACEVIC', 'PETROVIC', 'JOVANOVIC',
  'NGUYEN', 'TRAN', 'LE', 'PHAM', 'HUYNH', 'VO', 'KIM', 'LEE', 'PARK', 'CHEN', 'WANG', 'LI', 'ZHANG', 'LIU',
  'TESFAYE', 'BEKELE', 'GEBRE', 'HAILE', 'ALEMU', 'OKAFOR', 'OKONKWO', 'ADEYEMI', 'MENSAH', 'BOATENG', 'JOSEPH',
  'PIERRE', 'JEAN-BAPTISTE', 'CHARLES', 'ETIENNE', 'OBRIEN', "O'CONNOR", 'MCDONALD', 'MACKENZIE', 'VAN DYKE',
];
const places = [
  'TEXAS', 'LONE STAR', 'MIDWEST', 'GREAT LAKES', 'BLUE RIDGE', 'ROCKY MOUNTAIN', 'PACIFIC', 'ATLANTIC', 'GULF COAST',
  'SOUTHERN', 'NORTHERN', 'EASTERN', 'WESTERN', 'CENTRAL', 'TRI-STATE', 'TRI STATE', 'DIXIE', 'PRAIRIE', 'OZARK',
  'APPALACHIAN', 'CAROLINA', 'GEORGIA', 'FLORIDA', 'SUNSHINE', 'GOLDEN STATE', 'CALIFORNIA', 'SIERRA', 'CASCADE',
  'DESERT', 'ARIZONA', 'NEVADA', 'UTAH', 'COLORADO', 'KANSAS', 'HEARTLAND', 'IOWA', 'OHIO VALLEY', 'KEYSTONE',
  'EMPIRE', 'GARDEN STATE', 'NEW ENGLAND', 'BAYOU', 'DELTA', 'MISSISSIPPI', 'TENNESSEE', 'KENTUCKY', 'BLUEGRASS',
  'VOLUNTEER', 'CHICAGO', 'WINDY CITY', 'MOTOR CITY', 'HOUSTON', 'DALLAS', 'EL PASO', 'LAREDO', 'SAN ANTONIO',
  'PHOENIX', 'TUCSON', 'FRESNO', 'INLAND EMPIRE', 'BAKERSFIELD', 'STOCKTON', 'SACRAMENTO', 'RENO', 'BOISE',
  'SPOKANE', 'TACOMA', 'PORTLAND', 'DENVER', 'OMAHA', 'DES MOINES', 'MEMPHIS', 'NASHVILLE', 'ATLANTA', 'SAVANNAH',
  'JACKSONVILLE', 'MIAMI', 'TAMPA BAY', 'ORLANDO', 'CHARLOTTE', 'RALEIGH', 'RICHMOND', 'BALTIMORE', 'JERSEY',
  'BRONX', 'BROOKLYN', 'BUFFALO', 'PITTSBURGH', 'CLEVELAND', 'COLUMBUS', 'INDY', 'LOUISVILLE', 'ST LOUIS',
  'KANSAS CITY', 'TULSA', 'OKLAHOMA', 'LITTLE ROCK', 'SHREVEPORT', 'MOBILE', 'BIRMINGHAM', 'KNOXVILLE', 'FARGO',
  'DAKOTA', 'MONTANA', 'BIG SKY', 'YELLOWSTONE', 'ALAMO', 'RIO GRANDE', 'BORDER', 'COASTAL', 'MOUNTAIN', 'VALLEY',
  'RIVER', 'LAKESIDE', 'PINE', 'OAK', 'CEDAR', 'MAPLE', 'CYPRESS', 'MAGNOLIA', 'PEACH STATE', 'SUN BELT',
];
const brandWords = [
  'EAGLE', 'FALCON', 'HAWK', 'LION', 'TIGER', 'WOLF', 'BEAR', 'MUSTANG', 'STALLION', 'BUFFALO', 'BISON', 'COUGAR',
  'PANTHER', 'THUNDER', 'LIGHTNING', 'STORM', 'ROAD', 'HIGHWAY', 'INTERSTATE', 'CROSSROADS', 'ROADRUNNER',
  'NATION', 'AMERICAN', 'PATRIOT', 'LIBERTY', 'FREEDOM', 'UNITED', 'ALLIED', 'ELITE', 'PREMIER', 'PRIME', 'APEX',
  'SUMMIT', 'PINNACLE', 'VANGUARD', 'PIONEER', 'FRONTIER', 'TITAN', 'ATLAS', 'TRIDENT', 'PHOENIX', 'ORION',
  'POLARIS', 'NOVA', 'STAR', 'NORTH STAR', 'SILVER', 'GOLDEN', 'DIAMOND', 'PLATINUM', 'CRYSTAL', 'ROYAL', 'CROWN',
  'KING', 'EMPIRE', 'LEGACY', 'HERITAGE', 'DYNASTY', 'VELOCITY', 'RAPID', 'SWIFT', 'QUICK', 'FAST LANE', 'EXPRESS',
  'PRIORITY', 'RELIABLE', 'DEPENDABLE', 'TRUSTED', 'LOYAL', 'HONEST', 'SAFE', 'SECURE', 'SMART', 'BRIGHT', 'TRUE',
  'BLESSED', 'GODS GRACE', "GOD'S GRACE", 'GRACE', 'FAITH', 'HOPE', 'MERCY', 'GLORY', 'ZION', 'SHALOM', 'BETHEL',
  'BLACK', 'RED', 'BLUE', 'GREEN', 'WHITE', 'IRON', 'STEEL', 'GRANITE', 'STONE', 'ROCK', 'TIMBER', 'HARVEST',
  'AGRI', 'FARM', 'RANCH', 'COUNTRY', 'HOMETOWN', 'FAMILY', 'BROTHERS', 'TWIN', 'DOUBLE', 'TRIPLE', 'ALPHA',
  'OMEGA', 'DELTA', 'SIGMA', 'ZETA', 'NEXUS', 'VERTEX', 'VECTOR', 'MATRIX', 'QUANTUM', 'INFINITY', 'HORIZON',
  'SUNRISE', 'SUNSET', 'DAWN', 'MIDNIGHT', 'MOONLIGHT', 'GALAXY', 'COMET', 'ROCKET', 'JET', 'TURBO', 'DIESEL',
  'BIG RIG', 'EIGHTEEN WHEELER', 'GEARJAMMER', 'KINGPIN', 'FIFTH WHEEL', 'MILE MARKER', 'OPEN ROAD', 'LONG HAUL',
];
const carrierWords = [
  'TRUCKING', 'TRUCKING', 'TRUCKING', 'TRANSPORT', 'TRANSPORT', 'TRANSPORTATION', 'TRANSPORTATION', 'LOGISTICS',
  'LOGISTICS', 'LOGISTICS', 'FREIGHT', 'FREIGHT', 'EXPRESS', 'HAULING', 'CARRIERS', 'CARRIER', 'LINES', 'TRANSIT',
  'DELIVERY', 'DELIVERIES', 'CARGO', 'HAULERS', 'MOVERS', 'FREIGHTWAYS', 'TRUCK LINES', 'MOTOR LINES', 'ENTERPRISES',
  'SERVICES', 'SOLUTIONS', 'GROUP', 'FLEET', 'XPRESS', 'TRANS', 'TRUCKING & LOGISTICS', 'TRANSPORT SERVICES',
  'FREIGHT LINES', 'FREIGHT SYSTEMS', 'DISPATCH', 'HOTSHOT', 'HOT SHOT', 'FLATBED', 'REEFER', 'TANK LINES',
  'AUTO TRANSPORT', 'CAR HAULERS', 'DRAYAGE', 'INTERMODAL', 'HEAVY HAUL', 'AGGREGATES', 'DUMP TRUCK SERVICE',
];
const legalForms = [
  'LLC', 'LLC', 'LLC', 'LLC', 'L.L.C.', 'INC', 'INC', 'INC.', 'CORP', 'CORPORATION', 'CO', 'COMPANY', 'LTD',
  'L L C', 'LLC.', 'INCORPORATED', '', '', '', '',
];

function ownerName(r: Rand): string {
  const first = pick(r, given);
  const last = pick(r, family);
  const middle = chance(r, 0.35) ? ` ${String.fromCharCode(65 + Math.floor(r() * 26))}` : '';
  return `${first}${middle} ${last}`;
}
function initials(r: Rand): string {
  const l = (): string => String.fromCharCode(65 + Math.floor(r() * 26));
  switch (Math.floor(r() * 5)) {
    case 0: return `${l()}&${l()}`;
    case 1: return `${l()} & ${l()}`;
    case 2: return `${l()}${l()}${l()}`;
    case 3: return `${l()}.${l()}.${l()}.`;
    default: return `${l()}${l()}`;
  }
}
function invented(r: Rand): string {
  const onsets = ['K', 'T', 'V', 'Z', 'R', 'M', 'N', 'D', 'B', 'S', 'L', 'TR', 'KR', 'ST', 'BR', 'GR', 'X', 'J', 'P', 'QU'];
  const vowels = ['A', 'E', 'I', 'O', 'U', 'AY', 'EE', 'OA', 'Y'];
  const codas = ['N', 'X', 'R', 'L', 'K', 'S', 'T', 'M', 'NT', 'RK', 'LL', 'V', 'ZZ', ''];
  const syllables = 2 + Math.floor(r() * 2);
  let word = '';
  for (let i = 0; i < syllables; i += 1) word += pick(r, onsets) + pick(r, vowels) + (i === syllables - 1 ? pick(r, codas) : '');
  return word;
}
function numberStem(r: Rand): string {
  return pick(r, ['24/7', '1ST CHOICE', 'NO 1', 'NUMBER ONE', '4 BROTHERS', '3 STAR', 'A1', 'A-1', '2 GUYS', 'TOP 10',
    'ROUTE 66', 'I-10', 'I 95', 'I-80', '5 STAR', '360', '1 WAY', '2 AMIGOS', '7 SEAS', '3 KINGS', '18 WHEELS', '911',
    `${1 + Math.floor(r() * 99)}`, `${1950 + Math.floor(r() * 75)}`]);
}

function carrierName(r: Rand): string {
  const form = pick(r, legalForms);
  const word = pick(r, carrierWords);
  const withForm = (stem: string): string => [stem, form].filter((s) => s !== '').join(' ');
  switch (Math.floor(r() * 12)) {
    case 0: case 1: return ownerName(r); // a sole proprietor registered under their own name
    case 2: return withForm(`${pick(r, family)} ${word}`);
    case 3: return withForm(`${ownerName(r)} ${word}`);
    case 4: return withForm(`${pick(r, places)} ${word}`);
    case 5: return withForm(`${pick(r, brandWords)} ${word}`);
    case 6: return withForm(`${pick(r, places)} ${pick(r, brandWords)} ${word}`);
    case 7: return withForm(`${invented(r)} ${word}`);
    case 8: return withForm(`${initials(r)} ${word}`);
    case 9: return withForm(`${numberStem(r)} ${word}`);
    case 10: return withForm(`${pick(r, family)} ${pick(r, ['BROTHERS', 'BROS', '& SONS', 'AND SONS', 'FAMILY', '& DAUGHTERS'])} ${word}`);
    default: return withForm(`${pick(r, given)} ${pick(r, brandWords)} ${word}`);
  }
}

function generatedHalf(seed: number, count: number): string[] {
  const r = rng(seed);
  const seen = new Set<string>();
  while (seen.size < count) seen.add(carrierName(r).replace(/\s+/g, ' ').trim());
  return [...seen];
}

// ---------------------------------------------------------------------------------------------------------------
// Planted variants: listed parties written the way a carrier would register them.
// ---------------------------------------------------------------------------------------------------------------
interface Listed { list: 'sdn' | 'sam'; uid: string; kind: 'entity' | 'individual' | 'firm'; name: string; aliases: string[] }
interface Planted { name: string; list: Listed['list']; uid: string; entry_kind: Listed['kind']; listed_name: string; variation: string }

const abbreviations: Record<string, string[]> = {
  GENERAL: ['GEN', 'GEN.', 'GENL'], COOPERATIVA: ['COOP', 'CO-OP'], COOPERATIVE: ['COOP', 'CO-OP'],
  INTERNATIONAL: ['INTL', "INT'L", 'INT.'], COMPANY: ['CO', 'CO.'], COMPANIA: ['CIA', 'CIA.', 'CO'],
  CORPORATION: ['CORP', 'CORP.'], LIMITED: ['LTD', 'LTD.'], NATIONAL: ['NATL', "NAT'L"], INDUSTRIAL: ['IND', 'INDL'],
  INDUSTRIES: ['IND', 'INDS'], TRADING: ['TRDG', 'TRADG'], SERVICES: ['SVCS', 'SERV'], SERVICE: ['SVC', 'SERV'],
  MANAGEMENT: ['MGMT', 'MGT'], ASSOCIATES: ['ASSOC', 'ASSOCS'], BROTHERS: ['BROS', 'BROS.'], DEVELOPMENT: ['DEV', 'DEVT'],
  GROUP: ['GRP'], HOLDING: ['HLDG', 'HLDGS'], HOLDINGS: ['HLDGS'], ENTERPRISES: ['ENT', 'ENTS'], ENTERPRISE: ['ENT'],
  INVESTMENT: ['INVT', 'INV'], INVESTMENTS: ['INVTS', 'INV'], CONSTRUCTION: ['CONSTR', 'CONST'], CONSTRUCTORA: ['CONSTR'],
  COMMERCIAL: ['COMML', 'COML'], COMERCIAL: ['COML', 'COMERC'], ENGINEERING: ['ENG', 'ENGG'], MANUFACTURING: ['MFG'],
  TRANSPORT: ['TRANSP', 'TRANS'], TRANSPORTATION: ['TRANSP', 'TRANS'], SHIPPING: ['SHPG', 'SHIPG'], EXPORT: ['EXP'],
  IMPORT: ['IMP'], SOCIEDAD: ['SOC'], ANONIMA: ['AN'], DISTRIBUIDORA: ['DISTRIB', 'DIST'], DISTRIBUTION: ['DISTRIB', 'DIST'],
  INMOBILIARIA: ['INMOB'], ORGANIZATION: ['ORG'], ORGANISATION: ['ORG'], FOUNDATION: ['FDN'], ASSOCIATION: ['ASSN'],
  PETROLEUM: ['PETRO'], INSTITUTE: ['INST'], UNIVERSITY: ['UNIV'], BANK: ['BK'], SAINT: ['ST'], MOUNT: ['MT'],
  MOHAMMED: ['MOHD', 'MHD'], MOHAMMAD: ['MOHD', 'MHD'], MUHAMMAD: ['MUHD', 'MHD'], ABDUL: ['ABD'],
};
const carrierTails = ['TRUCKING LLC', 'TRANSPORT INC', 'LOGISTICS LLC', 'FREIGHT LLC', 'EXPRESS INC', 'HAULING', 'CARRIERS LLC', 'TRANSPORTATION CORP'];
const carrierHeads = ['NEW', 'NORTH', 'GLOBAL', 'ROYAL', 'FIRST', 'UNITED', 'STAR', 'PRIME'];
const legalTails = /\b(S\.?A\.?|S\.?A\.?R\.?L\.?|LTD\.?|LLC|INC\.?|CO\.?|CORP\.?|GMBH|LIMITED|C\.?A\.?|S\.?L\.?|SRL|LTDA\.?|S\.?C\.?S\.?|JSC|OOO|OAO|PJSC|ZAO|FZE|FZCO|PLC|B\.?V\.?|AG|S\.?DE R\.?L\.?)\s*$/;

function words(name: string): string[] {
  return name.toUpperCase().replace(/[.,;()"']/g, ' ').split(/\s+/).filter((w) => w !== '');
}
function typo(r: Rand, word: string): string {
  if (word.length < 5) return word;
  const i = 1 + Math.floor(r() * (word.length - 2));
  switch (Math.floor(r() * 3)) {
    case 0: return word.slice(0, i) + word.slice(i + 1); // drop a letter
    case 1: return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2); // swap two
    default: return word.slice(0, i) + word[i] + word.slice(i); // double a letter
  }
}
function stripLegal(name: string): string {
  let out = name.toUpperCase().replace(/[,]/g, ' ').replace(/\s+/g, ' ').trim();
  for (let i = 0; i < 2; i += 1) out = out.replace(legalTails, '').trim();
  return out;
}

/** Every variation that applies to an entity or firm name; the caller picks some of them. */
function entityVariations(r: Rand, e: Listed): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const base = stripLegal(e.name);
  const ws = words(base);
  out.push(['legal_form_swap', `${base} ${pick(r, ['LLC', 'INC', 'CORP'])}`]);
  out.push(['extended', `${pick(r, carrierHeads)} ${base} ${pick(r, carrierTails)}`]);
  out.push(['carrier_suffix', `${base} ${pick(r, carrierTails)}`]);
  if (ws.length >= 2) {
    const shuffled = [...ws];
    for (let i = shuffled.length - 1; i > 0; i -= 1) { const j = Math.floor(r() * (i + 1)); [shuffled[i], shuffled[j]] = [shuffled[j] as string, shuffled[i] as string]; }
    if (shuffled.join(' ') === ws.join(' ')) shuffled.reverse();
    out.push(['reordered_with_carrier_words', `${shuffled.join(' ')} ${pick(r, carrierTails)}`]);
  }
  const abbreviable = ws.filter((w) => abbreviations[w] !== undefined);
  if (abbreviable.length > 0) {
    const target = pick(r, abbreviable);
    out.push(['abbreviation', ws.map((w) => (w === target ? pick(r, abbreviations[w] as string[]) : w)).join(' ')]);
  }
  const long = ws.filter((w) => w.length >= 6);
  if (long.length > 0) {
    const target = pick(r, long);
    out.push(['typo', `${ws.map((w) => (w === target ? typo(r, w) : w)).join(' ')} ${pick(r, ['LLC', 'INC', ''])}`.trim()]);
  }
  if (/-[EI]-|\s[EYI]\s|\sAND\s|\s&\s/.test(base)) {
    const split = base.replace(/-([EI])-/g, ' $1 ');
    const dropped = base.replace(/-[EI]-/g, ' ').replace(/\s[EYI]\s/g, ' ').replace(/\s(AND|&)\s/g, ' ');
    const joined = base.replace(/-([EI])-/g, '$1').replace(/\s([EYI])\s/g, ' ');
    out.push(['particle', pick(r, [split, dropped, joined].filter((v) => v !== base).concat(dropped))]);
  }
  if (/[0-9]/.test(base)) {
    const withTypo = base.replace(/([A-Z]{4,})(\s*)([0-9]+)/, (_m, w: string, sp: string, n: string) => `${typo(r, w)}${sp}${n}`);
    out.push(['typo_near_number', withTypo !== base ? withTypo : base.replace(/([0-9]+)(\s*)([A-Z]{4,})/, (_m, n: string, sp: string, w: string) => `${n}${sp}${typo(r, w)}`)]);
  }
  if (/[-.&/]/.test(base)) out.push(['punctuation', base.replace(/[-./]/g, ' ').replace(/&/g, 'AND').replace(/\s+/g, ' ').trim()]);
  if (e.aliases.length > 0) out.push(['alias', `${stripLegal(pick(r, e.aliases))} ${pick(r, carrierTails)}`]);
  return out;
}

/** OFAC writes individuals "LAST, First Middle"; a carrier registers "FIRST LAST" or "FIRST M LAST DBA …". */
function individualVariations(r: Rand, e: Listed): Array<[string, string]> {
  const [lastPart, firstPart] = e.name.split(',').map((s) => s.trim().toUpperCase());
  if (lastPart === undefined || firstPart === undefined || firstPart === '') return [];
  const firsts = words(firstPart);
  const lasts = words(lastPart);
  const first = firsts[0] as string;
  const out: Array<[string, string]> = [];
  out.push(['person_natural_order', `${firsts.join(' ')} ${lasts.join(' ')}`]);
  out.push(['person_sole_proprietor', `${first} ${lasts.join(' ')} ${pick(r, ['TRUCKING', 'TRANSPORT', 'TRUCKING LLC', 'LOGISTICS'])}`]);
  if (firsts.length > 1) out.push(['person_middle_initial', `${first} ${(firsts[1] as string)[0]} ${lasts.join(' ')}`]);
  const long = [...firsts, ...lasts].filter((w) => w.length >= 6);
  if (long.length > 0) {
    const t = pick(r, long);
    out.push(['person_typo', [...firsts, ...lasts].map((w) => (w === t ? typo(r, w) : w)).join(' ')]);
  }
  if (/-/.test(e.name)) out.push(['punctuation', `${firsts.join(' ')} ${lasts.join(' ')}`.replace(/-/g, ' ')]);
  return out;
}

function loadSdn(dir: string): Listed[] {
  const aliases = new Map<string, string[]>();
  for (const row of readRows(join(dir, 'alt.csv'))) {
    const [ent, , type, name] = row;
    if (ent === undefined || name === undefined || name === '-0-') continue;
    if (type !== 'aka' && type !== 'fka') continue;
    aliases.set(ent, [...(aliases.get(ent) ?? []), name]);
  }
  const out: Listed[] = [];
  for (const row of readRows(join(dir, 'sdn.csv'))) {
    const [ent, name, type] = row;
    if (ent === undefined || name === undefined || type === undefined) continue;
    if (type === 'vessel' || type === 'aircraft') continue;
    out.push({ list: 'sdn', uid: ent, kind: type === 'individual' ? 'individual' : 'entity', name, aliases: aliases.get(ent) ?? [] });
  }
  return out;
}

/** SAM V2 sample: firms and special entity designations by their Name column (header row present). */
function loadSam(path: string): Listed[] {
  const rows = readFileSync(path, 'utf8').split(/\r?\n(?=")/).map(parseCsvLine);
  const header = rows.shift() ?? [];
  const classIx = header.indexOf('Classification');
  const nameIx = header.indexOf('Name');
  const uidIx = header.indexOf('SAM Number');
  const seen = new Set<string>();
  const out: Listed[] = [];
  for (const row of rows) {
    const name = (row[nameIx] ?? '').replace(/\s+/g, ' ').trim();
    if (row[classIx] === 'Individual' || name === '' || seen.has(name)) continue;
    seen.add(name);
    out.push({ list: 'sam', uid: row[uidIx] ?? name, kind: 'firm', name, aliases: [] });
  }
  return out;
}

/** A stable half for a listed party: FNV-1a of its list and uid, so a party's variants never straddle the halves. */
function halfOf(e: Listed): 'tune' | 'heldout' {
  let h = 0x811c9dc5;
  for (const ch of `${e.list}:${e.uid}`) { h ^= ch.charCodeAt(0); h = Math.imul(h, 0x01000193) >>> 0; }
  return h % 2 === 0 ? 'tune' : 'heldout';
}

function planted(): Record<'tune' | 'heldout', Planted[]> {
  const r = rng(20261128);
  const sdn = loadSdn(join(shared, 'data/real/ofac/sdn_2021-07'));
  const sam = loadSam(join(shared, 'data/real/sam_exclusions/SAM_Exclusions_Public_V2_sample_2023-11.csv'));
  // Entities with at least two words once legal forms are set aside: one-word listed names are a matter for
  // the exact-name rules, not for variants written around them.
  const entities = sdn.filter((e) => e.kind === 'entity' && words(stripLegal(e.name)).length >= 2);
  const particleEntities = entities.filter((e) => /-[EI]-|\s[EYI]\s/.test(stripLegal(e.name)));
  const numberEntities = entities.filter((e) => /[0-9]/.test(stripLegal(e.name)) && /[A-Z]{4,}\s*[0-9]|[0-9]\s*[A-Z]{4,}/.test(stripLegal(e.name)));
  const abbrevEntities = entities.filter((e) => words(stripLegal(e.name)).some((w) => abbreviations[w] !== undefined));
  const individuals = sdn.filter((e) => e.kind === 'individual' && e.name.includes(','));
  const out: Record<'tune' | 'heldout', Planted[]> = { tune: [], heldout: [] };
  const used = new Set<string>();
  const plant = (e: Listed, variations: Array<[string, string]>, take: number, prefer?: string): void => {
    const chosen = prefer === undefined ? [] : variations.filter(([k]) => k === prefer).slice(0, 1);
    const rest = variations.filter((v) => !chosen.includes(v));
    while (chosen.length < take && rest.length > 0) chosen.push(rest.splice(Math.floor(r() * rest.length), 1)[0] as [string, string]);
    for (const [variation, name] of chosen) {
      const clean = name.replace(/\s+/g, ' ').trim();
      if (clean === '' || used.has(clean)) continue;
      used.add(clean);
      out[halfOf(e)].push({ name: clean, list: e.list, uid: e.uid, entry_kind: e.kind, listed_name: e.name, variation });
    }
  };
  const sample = <T>(xs: T[], n: number): T[] => {
    const copy = [...xs];
    const res: T[] = [];
    while (res.length < n && copy.length > 0) res.push(copy.splice(Math.floor(r() * copy.length), 1)[0] as T);
    return res;
  };
  for (const e of sample(entities, 150)) plant(e, entityVariations(r, e), 2);
  for (const e of sample(particleEntities, 40)) plant(e, entityVariations(r, e), 1, 'particle');
  for (const e of sample(numberEntities, 30)) plant(e, entityVariations(r, e), 1, 'typo_near_number');
  for (const e of sample(abbrevEntities, 50)) plant(e, entityVariations(r, e), 1, 'abbreviation');
  for (const e of sample(individuals, 110)) plant(e, individualVariations(r, e), 1);
  for (const e of sam) plant(e, entityVariations(r, e), 6);
  return out;
}

const outDir = here;
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'generated-tune.txt'), `${generatedHalf(11, 12_000).join('\n')}\n`);
writeFileSync(join(outDir, 'generated-heldout.txt'), `${generatedHalf(29, 12_000).join('\n')}\n`);
const sets = planted();
for (const half of ['tune', 'heldout'] as const) {
  writeFileSync(join(outDir, `planted-${half}.jsonl`), `${sets[half].map((p) => JSON.stringify(p)).join('\n')}\n`);
}
const count = (xs: Planted[], f: (p: Planted) => string): Record<string, number> =>
  xs.reduce<Record<string, number>>((acc, p) => { acc[f(p)] = (acc[f(p)] ?? 0) + 1; return acc; }, {});
console.log(JSON.stringify({
  tune: { total: sets.tune.length, by_kind: count(sets.tune, (p) => p.entry_kind), by_variation: count(sets.tune, (p) => p.variation) },
  heldout: { total: sets.heldout.length, by_kind: count(sets.heldout, (p) => p.entry_kind), by_variation: count(sets.heldout, (p) => p.variation) },
}, null, 1));
