// A strict LMS-side SCORM API for the tests, written from the specifications' data models, read at their
// strictest: SCORM 1.2 (ADL, "The SCORM Run-Time Environment", 2001: §3.3 API, §3.3.4 error codes, §3.4 data
// model, §3.4.5 data types) and SCORM 2004 4th Edition (ADL RTE 1.1, 2009: §3.1.7 error codes, §4.1.1 data types,
// §4.2 data model). Lenient runtimes (scorm-again) accept what this one refuses; a value this API refuses is one
// some LMS may drop. Every call that ends with an error code other than 0 is counted in `refused`.
//   createStrictApi('1.2' | '2004', { cmi, failures, reinitialize }) → { api, store, refused, calls, nextLaunch() }
// A plain ES module with no imports: the tests' host page loads it in the browser, node tests import it.

// ---- Shared syntax ----------------------------------------------------------------------------------------

// 1.2 §3.4.5 CMIString255/CMIString4096: "a set of ASCII characters"; strictest reading: U+0000–U+007F only.
const ascii = (value, max) => value.length <= max && /^[\x00-\x7f]*$/.test(value);
// 1.2 §3.4.5 CMIIdentifier: "an alphanumeric group of characters with no white space or unprintable
// characters"; strictest reading: letters and digits only (no hyphen, underscore or colon), 1–255.
const identifier12 = (value) => /^[A-Za-z0-9]{1,255}$/.test(value);
// 1.2 §3.4.5 CMIDecimal: "a number that may have a decimal point", optionally preceded by a minus sign.
const decimal12 = (value) => /^-?\d+(\.\d+)?$/.test(value);
// 1.2 §3.4.5 CMITime HH:MM:SS(.SS), hours 00–23; CMITimespan HHHH:MM:SS(.SS), hours of 2 to 4 digits.
const time12 = (value) => /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,2})?$/.test(value);
const timespan12 = (value) => /^\d{2,4}:[0-5]\d:[0-5]\d(\.\d{1,2})?$/.test(value);
// 1.2 §3.4.5 CMIFeedback, by the interaction's type (§3.4.4 cmi.interactions.n.student_response).
const choiceChar = '[0-9a-z]';
const feedback12 = {
  'true-false': (value) => /^[01tf]$/.test(value),
  choice: (value) => new RegExp(`^(${choiceChar}(,${choiceChar})*|\\{${choiceChar}(,${choiceChar})*\\})$`).test(value),
  'fill-in': (value) => ascii(value, 255),
  numeric: decimal12,
  likert: (value) => new RegExp(`^${choiceChar}?$`).test(value),
  matching: (value) => new RegExp(`^\\{?${choiceChar}\\.${choiceChar}(,${choiceChar}\\.${choiceChar})*\\}?$`).test(value),
  performance: (value) => ascii(value, 255),
  sequencing: (value) => new RegExp(`^${choiceChar}(,${choiceChar})*$`).test(value),
};

// 2004 §4.1.1.4 real(10,7): a decimal number, at most 10 significant digits and 7 after the point (no exponent).
function real107(value) {
  const match = /^-?(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) return false;
  const digits = (match[1] + (match[2] ?? '')).replace(/^0+/, '');
  return (match[2] ?? '').length <= 7 && digits.length <= 10;
}
// 2004 §4.1.1.6 time (second,10,0): YYYY[-MM[-DD[Thh[:mm[:ss[.s[TZD]]]]]]], year 1970–2038, at most two
// decimal digits of seconds; TZD Z, ±hh or ±hh:mm.
const time2004 = (value) =>
  /^(19[7-9]\d|20[0-2]\d|203[0-8])(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3])(:[0-5]\d(:[0-5]\d(\.\d{1,2})?)?)?(Z|[+-]([01]\d|2[0-3])(:[0-5]\d)?)?)?)?)?$/.test(value);
// 2004 §4.1.1.7 timeinterval (second,10,2): P[yY][mM][dD][T[hH][mM][s[.s]S]], at least one part, seconds to
// two decimal places; a "T" needs a time part after it.
function timeinterval(value) {
  const match = /^P(\d+Y)?(\d+M)?(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d{1,2})?S)?)?$/.exec(value);
  if (!match) return false;
  const [, y, mo, d, t, h, mi, s] = match;
  if (t && !h && !mi && !s) return false;
  return Boolean(y || mo || d || h || mi || s);
}
// 2004 §4.1.1.1 characterstring with a smallest permitted maximum (SPM). This LMS keeps exactly the SPM and
// refuses what is longer (the RTE lets an LMS keep no more than the SPM).
const characterstring = (value, spm) => value.length <= spm;
// 2004 §4.1.1.7 localized_string_type: an optional {lang=<language tag>} delimiter, then at most SPM characters.
function localized(value, spm) {
  const match = /^\{lang=([^}]*)\}/.exec(value);
  if (match && !/^([A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*|)$/.test(match[1])) return false;
  return characterstring(match ? value.slice(match[0].length) : value, spm);
}
// 2004 §4.1.1.10–11 short_identifier_type (SPM 250) and long_identifier_type (SPM 4000): "a characterstring that
// conforms to the syntax defined for Universal Resource Identifiers (URI), refer to RFC 3986"; strictest
// reading: an absolute URI (RFC 3986 §3: scheme ":" …, no spaces, valid percent-escapes); a urn: needs a
// namespace id of 1–31 letters, digits or hyphens and a non-empty namespace-specific string (RFC 2141).
function uri(value, spm) {
  if (value.length === 0 || value.length > spm) return false;
  // Brackets are left out: RFC 3986 allows them only around an IP literal host, which no identifier here needs.
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#%]+$/.test(value)) return false;
  if (/%(?![0-9A-Fa-f]{2})/.test(value)) return false;
  if (/^urn:/i.test(value)) return /^urn:[A-Za-z0-9][A-Za-z0-9-]{0,30}:[^:].*$/i.test(value);
  return true;
}
// 2004 §4.2.9.1 (correct_responses.n.pattern) and §4.2.9.2 (learner_response), by interaction type. `pattern`
// allows the {case_matters=…}/{order_matters=…} delimiters of fill-in and long-fill-in patterns.
const booleanDelimiters = (value, names) => {
  let rest = value;
  for (;;) {
    const match = /^\{(case_matters|order_matters)=(true|false)\}/.exec(rest);
    if (!match || !names.includes(match[1])) return rest;
    rest = rest.slice(match[0].length);
  }
};
const splitBy = (value, separator) => value.split(separator);
const unique = (items) => new Set(items).size === items.length;
const responseFormats2004 = {
  'true-false': () => (value) => value === 'true' || value === 'false',
  choice: () => (value) => {
    if (value === '') return true; // §4.2.9.2: an empty set
    const items = splitBy(value, '[,]');
    return items.length <= 36 && unique(items) && items.every((item) => uri(item, 250));
  },
  'fill-in': (pattern) => (value) => {
    const items = splitBy(pattern ? booleanDelimiters(value, ['case_matters', 'order_matters']) : value, '[,]');
    return items.length <= 10 && items.every((item) => localized(item, 250));
  },
  'long-fill-in': (pattern) => (value) => localized(pattern ? booleanDelimiters(value, ['case_matters']) : value, 4000),
  numeric: (pattern) => (value) => {
    if (!pattern) return real107(value);
    const [min, max, extra] = splitBy(value, '[:]');
    return extra === undefined && max !== undefined && (min === '' || real107(min)) && (max === '' || real107(max));
  },
  likert: () => (value) => uri(value, 250),
  other: () => (value) => characterstring(value, 4000),
};

// 2004 §4.2.9 cmi.interactions: "The LMS shall support an SPM of 250 interactions".
const interactionsSpm2004 = 250;

// ---- The data models -----------------------------------------------------------------------------------------
// Each element: access (r, w or rw), check(value, store, index) → error code or 0. Interaction elements use "n".

const vocabulary = (...words) => (value) => words.includes(value);
const readOnly = { access: 'r' };

const model12 = {
  'cmi.core._children': readOnly,
  'cmi.core.student_id': readOnly,
  'cmi.core.student_name': readOnly,
  'cmi.core.lesson_location': { access: 'rw', valid: (v) => ascii(v, 255) },
  'cmi.core.credit': readOnly,
  // §3.4.4: the SCO may set these statuses; "not attempted" is the LMS's own.
  'cmi.core.lesson_status': { access: 'rw', valid: vocabulary('passed', 'completed', 'failed', 'incomplete', 'browsed') },
  'cmi.core.entry': readOnly,
  'cmi.core.score._children': readOnly,
  // §3.4.4 cmi.core.score.*: CMIDecimal or CMIBlank, normalised to 0–100 (ADL's 1.2 conformance tests).
  'cmi.core.score.raw': { access: 'rw', valid: (v) => v === '' || (decimal12(v) && Number(v) >= 0 && Number(v) <= 100) },
  'cmi.core.score.min': { access: 'rw', valid: (v) => v === '' || (decimal12(v) && Number(v) >= 0 && Number(v) <= 100) },
  'cmi.core.score.max': { access: 'rw', valid: (v) => v === '' || (decimal12(v) && Number(v) >= 0 && Number(v) <= 100) },
  'cmi.core.total_time': readOnly,
  'cmi.core.lesson_mode': readOnly,
  'cmi.core.exit': { access: 'w', valid: vocabulary('time-out', 'suspend', 'logout', '') },
  'cmi.core.session_time': { access: 'w', valid: timespan12 },
  'cmi.suspend_data': { access: 'rw', valid: (v) => ascii(v, 4096) },
  'cmi.launch_data': readOnly,
  'cmi.comments': { access: 'rw', valid: (v) => ascii(v, 4096) },
  'cmi.comments_from_lms': readOnly,
  'cmi.student_data._children': readOnly,
  'cmi.student_data.mastery_score': readOnly,
  'cmi.student_data.max_time_allowed': readOnly,
  'cmi.student_data.time_limit_action': readOnly,
  'cmi.interactions._children': readOnly,
  'cmi.interactions._count': readOnly,
  'cmi.interactions.n.id': { access: 'w', valid: identifier12 },
  'cmi.interactions.n.objectives._count': readOnly,
  'cmi.interactions.n.time': { access: 'w', valid: time12 },
  'cmi.interactions.n.type': { access: 'w', valid: vocabulary('true-false', 'choice', 'fill-in', 'matching', 'performance', 'sequencing', 'likert', 'numeric') },
  'cmi.interactions.n.correct_responses._count': readOnly,
  'cmi.interactions.n.correct_responses.n.pattern': { access: 'w', valid: (v, type) => (feedback12[type] ?? ((x) => ascii(x, 255)))(v) },
  'cmi.interactions.n.weighting': { access: 'w', valid: decimal12 },
  'cmi.interactions.n.student_response': { access: 'w', valid: (v, type) => (feedback12[type] ?? ((x) => ascii(x, 255)))(v) },
  'cmi.interactions.n.result': { access: 'w', valid: (v) => ['correct', 'wrong', 'unanticipated', 'neutral'].includes(v) || decimal12(v) },
  'cmi.interactions.n.latency': { access: 'w', valid: timespan12 },
};

const range = (min, max) => (v) => real107(v) && Number(v) >= min && Number(v) <= max;
const model2004 = {
  'cmi._version': readOnly,
  'cmi.completion_status': { access: 'rw', valid: vocabulary('completed', 'incomplete', 'not attempted', 'unknown') },
  'cmi.completion_threshold': readOnly,
  'cmi.credit': readOnly,
  'cmi.entry': readOnly,
  'cmi.exit': { access: 'w', valid: vocabulary('timeout', 'suspend', 'logout', 'normal', '') },
  'cmi.launch_data': readOnly,
  'cmi.learner_id': readOnly,
  'cmi.learner_name': readOnly,
  'cmi.location': { access: 'rw', valid: (v) => characterstring(v, 1000) },
  'cmi.max_time_allowed': readOnly,
  'cmi.mode': readOnly,
  'cmi.progress_measure': { access: 'rw', valid: range(0, 1) },
  'cmi.scaled_passing_score': readOnly,
  'cmi.score._children': readOnly,
  'cmi.score.scaled': { access: 'rw', valid: range(-1, 1) },
  'cmi.score.raw': { access: 'rw', valid: real107 },
  'cmi.score.min': { access: 'rw', valid: real107 },
  'cmi.score.max': { access: 'rw', valid: real107 },
  'cmi.session_time': { access: 'w', valid: timeinterval },
  'cmi.success_status': { access: 'rw', valid: vocabulary('passed', 'failed', 'unknown') },
  'cmi.suspend_data': { access: 'rw', valid: (v) => characterstring(v, 64000) },
  'cmi.time_limit_action': readOnly,
  'cmi.total_time': readOnly,
  'cmi.interactions._children': readOnly,
  'cmi.interactions._count': readOnly,
  'cmi.interactions.n.id': { access: 'rw', valid: (v) => uri(v, 4000) },
  'cmi.interactions.n.type': { access: 'rw', valid: vocabulary('true-false', 'choice', 'fill-in', 'long-fill-in', 'matching', 'performance', 'sequencing', 'likert', 'numeric', 'other') },
  'cmi.interactions.n.objectives._count': readOnly,
  'cmi.interactions.n.timestamp': { access: 'rw', valid: time2004 },
  'cmi.interactions.n.correct_responses._count': readOnly,
  'cmi.interactions.n.correct_responses.n.pattern': { access: 'rw', needsType: true, valid: (v, type) => (responseFormats2004[type] ?? responseFormats2004.other)(true)(v) },
  'cmi.interactions.n.weighting': { access: 'rw', valid: real107 },
  'cmi.interactions.n.learner_response': { access: 'rw', needsType: true, valid: (v, type) => (responseFormats2004[type] ?? responseFormats2004.other)(false)(v) },
  'cmi.interactions.n.result': { access: 'rw', valid: (v) => ['correct', 'incorrect', 'unanticipated', 'neutral'].includes(v) || real107(v) },
  'cmi.interactions.n.latency': { access: 'rw', valid: timeinterval },
  'cmi.interactions.n.description': { access: 'rw', valid: (v) => localized(v, 250) },
};

// What each version's codes mean, and the names for the situations both meet.
const dialects = {
  '1.2': {
    model: model12,
    calls: { init: 'LMSInitialize', finish: 'LMSFinish', get: 'LMSGetValue', set: 'LMSSetValue', commit: 'LMSCommit', error: 'LMSGetLastError', text: 'LMSGetErrorString', diagnostic: 'LMSGetDiagnostic' },
    // §3.3.4: 0 No error, 101 General exception, 201 Invalid argument, 202 cannot have children, 203 not an
    // array, 301 Not initialized, 401 Not implemented, 402 Invalid set value (keyword), 403 read only, 404 write
    // only, 405 Incorrect data type. (351 is SCORM 2004's; 1.2 has no "general set failure".)
    texts: { 0: 'No error', 101: 'General exception', 201: 'Invalid argument error', 202: 'Element cannot have children', 203: 'Element not an array - cannot have count', 301: 'Not initialized', 401: 'Not implemented error', 402: 'Invalid set value, element is a keyword', 403: 'Element is read only', 404: 'Element is write only', 405: 'Incorrect data type' },
    codes: { badArgument: 201, alreadyInitialized: 101, notInitialized: 301, terminated: 301, finishBeforeInit: 301, finishAfterFinish: 301, getBeforeInit: 301, getAfterFinish: 301, setBeforeInit: 301, setAfterFinish: 301, commitBeforeInit: 301, commitAfterFinish: 301, undefinedElement: 201, keyword: 402, readOnly: 403, writeOnly: 404, typeMismatch: 405, outOfRange: 405, notInitializedValue: 0, dependency: 201, badIndex: 201, getFailure: 201, commitFailure: 101, setFailure: 101 },
    keywords: /\._(children|count)$/,
  },
  '2004': {
    model: model2004,
    calls: { init: 'Initialize', finish: 'Terminate', get: 'GetValue', set: 'SetValue', commit: 'Commit', error: 'GetLastError', text: 'GetErrorString', diagnostic: 'GetDiagnostic' },
    // RTE 4th Ed. §3.1.7, Table 3.1.7a.
    texts: { 0: 'No Error', 101: 'General Exception', 102: 'General Initialization Failure', 103: 'Already Initialized', 104: 'Content Instance Terminated', 111: 'General Termination Failure', 112: 'Termination Before Initialization', 113: 'Termination After Termination', 122: 'Retrieve Data Before Initialization', 123: 'Retrieve Data After Termination', 132: 'Store Data Before Initialization', 133: 'Store Data After Termination', 142: 'Commit Before Initialization', 143: 'Commit After Termination', 201: 'General Argument Error', 301: 'General Get Failure', 351: 'General Set Failure', 391: 'General Commit Failure', 401: 'Undefined Data Model Element', 402: 'Unimplemented Data Model Element', 403: 'Data Model Element Value Not Initialized', 404: 'Data Model Element Is Read Only', 405: 'Data Model Element Is Write Only', 406: 'Data Model Element Type Mismatch', 407: 'Data Model Element Value Out Of Range', 408: 'Data Model Dependency Not Established' },
    codes: { badArgument: 201, alreadyInitialized: 103, terminated: 104, finishBeforeInit: 112, finishAfterFinish: 113, getBeforeInit: 122, getAfterFinish: 123, setBeforeInit: 132, setAfterFinish: 133, commitBeforeInit: 142, commitAfterFinish: 143, undefinedElement: 401, keyword: 404, readOnly: 404, writeOnly: 405, typeMismatch: 406, outOfRange: 407, notInitializedValue: 403, dependency: 408, badIndex: 351, getFailure: 301, commitFailure: 391, setFailure: 351 },
  },
};

// "cmi.interactions.3.correct_responses.0.pattern" → { key: "cmi.interactions.n.correct_responses.n.pattern", indexes: [3, 0] }
function parseElement(element) {
  const indexes = [];
  const key = element.replace(/\.(\d+)(?=\.|$)/g, (_, n) => {
    indexes.push(Number(n));
    return '.n';
  });
  return { key, indexes };
}

// Elements whose values depend on the number of interactions/correct responses stored.
function countOf(store, prefix) {
  let count = 0;
  while ([...store.keys()].some((key) => key.startsWith(`${prefix}.${count}.`))) count++;
  return count;
}

// `cmi`: the LMS's stored data for this launch (element → string), e.g. { 'cmi.entry': 'resume', … }.
// `failures`: { throws: true } (every call but Initialize throws; with initializeThrows: true, Initialize too),
// { refuseSets: true } (every SetValue is refused with a general failure), { failCommits: true } (every Commit fails).
// `reinitialize`: true for an LMS that lets the SCO start a new session after Finish/Terminate, keeping the data
// (the specifications refuse it: 1.2 301, 2004 104; some LMSs allow it).
export function createStrictApi(version, { cmi = {}, failures = {}, reinitialize = false } = {}) {
  const dialect = dialects[version];
  const { codes } = dialect;
  const store = new Map(Object.entries(cmi).map(([k, v]) => [k, String(v)]));
  const refused = []; // { call, args, code }
  const calls = []; // every call's name, in order
  let state = 'new'; // new → running → done
  let lastError = 0;
  let diagnostic = '';

  const end = (call, args, code, value, why = '') => {
    lastError = code;
    diagnostic = why;
    if (code !== 0) refused.push({ call, args, code, why });
    return value;
  };
  const interactionType = (indexes) => store.get(`cmi.interactions.${indexes[0]}.type`);

  // The RTE's evaluation rules for reading statuses: 2004 §4.2.4.1 (completion_status from progress_measure and
  // completion_threshold) and §4.2.21.1 (success_status from score.scaled and scaled_passing_score).
  function evaluated(element) {
    if (version !== '2004') return store.get(element);
    if (element === 'cmi.success_status' && store.has('cmi.scaled_passing_score')) {
      if (!store.has('cmi.score.scaled')) return 'unknown';
      return Number(store.get('cmi.score.scaled')) >= Number(store.get('cmi.scaled_passing_score')) ? 'passed' : 'failed';
    }
    if (element === 'cmi.completion_status' && store.has('cmi.completion_threshold')) {
      if (!store.has('cmi.progress_measure')) return 'unknown';
      return Number(store.get('cmi.progress_measure')) >= Number(store.get('cmi.completion_threshold')) ? 'completed' : 'incomplete';
    }
    return store.get(element);
  }

  function getValue(element) {
    const call = dialect.calls.get;
    if (state === 'new') return end(call, [element], codes.getBeforeInit, '', 'not initialized');
    if (state === 'done') return end(call, [element], codes.getAfterFinish, '', 'terminated');
    element = String(element);
    if (element === '') return end(call, [element], codes.getFailure, '', 'empty element name');
    const { key, indexes } = parseElement(element);
    if (key.endsWith('._count')) {
      if (!dialect.model[key]) return end(call, [element], codes.undefinedElement, '', 'no such array');
      return end(call, [element], 0, String(countOf(store, element.slice(0, -'._count'.length))));
    }
    if (key.endsWith('._children')) return dialect.model[key] ? end(call, [element], 0, 'children') : end(call, [element], codes.undefinedElement, '', 'no such element');
    const definition = dialect.model[key];
    if (!definition) return end(call, [element], codes.undefinedElement, '', 'not in the data model');
    if (definition.access === 'w') return end(call, [element], codes.writeOnly, '', 'write only');
    if (indexes.length && indexes[0] >= countOf(store, 'cmi.interactions')) return end(call, [element], codes.getFailure, '', 'no such interaction');
    const value = evaluated(element);
    if (value === undefined) return end(call, [element], codes.notInitializedValue, '', 'not initialized');
    return end(call, [element], 0, value);
  }

  function setValue(element, value) {
    const call = dialect.calls.set;
    const args = [element, value];
    if (state === 'new') return end(call, args, codes.setBeforeInit, 'false', 'not initialized');
    if (state === 'done') return end(call, args, codes.setAfterFinish, 'false', 'terminated');
    if (typeof value !== 'string') return end(call, args, codes.typeMismatch, 'false', `a ${typeof value}, not a string`);
    if (failures.refuseSets) return end(call, args, codes.setFailure, 'false', 'this LMS refuses every SetValue');
    element = String(element);
    const { key, indexes } = parseElement(element);
    if (version === '1.2' ? dialect.keywords.test(key) : /\._(children|count|version)$/.test(key)) return end(call, args, codes.keyword, 'false', 'a keyword');
    const definition = dialect.model[key];
    if (!definition) return end(call, args, codes.undefinedElement, 'false', 'not in the data model');
    if (definition.access === 'r') return end(call, args, codes.readOnly, 'false', 'read only');
    // Arrays grow one at a time (1.2 §3.4.4 "the index must be sequential"; 2004 §4.2.9: n ≤ _count, else 351).
    if (indexes.length) {
      const count = countOf(store, 'cmi.interactions');
      if (indexes[0] > count) return end(call, args, codes.badIndex, 'false', `index ${indexes[0]} past _count ${count}`);
      // 2004 §4.2.9: the LMS keeps an SPM of 250 interactions; this one keeps exactly that many (351 past it).
      if (version === '2004' && indexes[0] >= interactionsSpm2004) return end(call, args, codes.setFailure, 'false', `past the ${interactionsSpm2004} interactions kept`);
      if (indexes.length > 1 && indexes[1] > countOf(store, `cmi.interactions.${indexes[0]}.correct_responses`)) return end(call, args, codes.badIndex, 'false', 'correct_responses index past _count');
      // 2004 §4.2.9: the id first, then the type before responses (408).
      if (version === '2004' && !key.endsWith('.n.id') && !store.has(`cmi.interactions.${indexes[0]}.id`)) return end(call, args, codes.dependency, 'false', 'id not set');
      if (version === '2004' && definition.needsType && !interactionType(indexes)) return end(call, args, codes.dependency, 'false', 'type not set');
    }
    if (!definition.valid(value, indexes.length ? interactionType(indexes) : undefined)) {
      const outOfRange = version === '2004' && /score\.scaled|progress_measure/.test(key) && real107(value);
      return end(call, args, outOfRange ? codes.outOfRange : codes.typeMismatch, 'false', `not a valid ${key}`);
    }
    store.set(element, value);
    return end(call, args, 0, 'true');
  }

  const api = {};
  const { calls: names } = dialect;
  const wrap = (name, body) => {
    api[name] = (...args) => {
      calls.push(name);
      if (failures.throws && (name !== names.init || failures.initializeThrows)) throw new Error(`LMS: ${name} failed`);
      return body(...args);
    };
  };
  wrap(names.init, (parameter) => {
    if (parameter !== '') return end(names.init, [parameter], codes.badArgument, 'false', 'the parameter must be ""');
    if (state === 'running') return end(names.init, [parameter], codes.alreadyInitialized, 'false', 'already initialized');
    if (state === 'done' && !reinitialize) return end(names.init, [parameter], codes.terminated, 'false', 'terminated');
    state = 'running';
    return end(names.init, [parameter], 0, 'true');
  });
  wrap(names.finish, (parameter) => {
    if (parameter !== '') return end(names.finish, [parameter], codes.badArgument, 'false', 'the parameter must be ""');
    if (state === 'new') return end(names.finish, [parameter], codes.finishBeforeInit, 'false', 'not initialized');
    if (state === 'done') return end(names.finish, [parameter], codes.finishAfterFinish, 'false', 'terminated');
    state = 'done';
    return end(names.finish, [parameter], 0, 'true');
  });
  wrap(names.get, getValue);
  wrap(names.set, setValue);
  wrap(names.commit, (parameter) => {
    if (parameter !== '') return end(names.commit, [parameter], codes.badArgument, 'false', 'the parameter must be ""');
    if (state === 'new') return end(names.commit, [parameter], codes.commitBeforeInit, 'false', 'not initialized');
    if (state === 'done') return end(names.commit, [parameter], codes.commitAfterFinish, 'false', 'terminated');
    if (failures.failCommits) return end(names.commit, [parameter], codes.commitFailure, 'false', 'this LMS fails every Commit');
    return end(names.commit, [parameter], 0, 'true');
  });
  // The error calls never change the last error (1.2 §3.3.3, 2004 §3.1.4.4).
  wrap(names.error, () => String(lastError));
  wrap(names.text, (code) => dialect.texts[Number(code)] ?? '');
  wrap(names.diagnostic, () => diagnostic);

  // The stored data as the next launch gets it (the LMS keeps the attempt): entry from exit (1.2 §3.4.4
  // cmi.core.entry, 2004 §4.2.7), write-only and session values dropped.
  function nextLaunch() {
    const next = Object.fromEntries([...store].filter(([key]) => !/\.(exit|session_time)$/.test(key)));
    const exit = store.get(version === '1.2' ? 'cmi.core.exit' : 'cmi.exit');
    next[version === '1.2' ? 'cmi.core.entry' : 'cmi.entry'] = exit === 'suspend' ? 'resume' : '';
    return next;
  }

  return { api, store, refused, calls, nextLaunch, get state() { return state; } };
}

// The data an LMS starts a first attempt with (what the manifest gives: 1.2 masteryscore 80, 2004
// minNormalizedMeasure 0.8); `extra` overrides.
export function firstLaunch(version, extra = {}) {
  const base =
    version === '1.2'
      ? { 'cmi.core.student_id': 'learner1', 'cmi.core.student_name': 'Learner, One', 'cmi.core.credit': 'credit', 'cmi.core.entry': 'ab-initio', 'cmi.core.lesson_status': 'not attempted', 'cmi.core.lesson_mode': 'normal', 'cmi.core.total_time': '0000:00:00', 'cmi.student_data.mastery_score': '80', 'cmi.launch_data': '', 'cmi.suspend_data': '', 'cmi.core.lesson_location': '' }
      : { 'cmi._version': '1.0', 'cmi.learner_id': 'urn:lms:learner1', 'cmi.learner_name': 'Learner, One', 'cmi.credit': 'credit', 'cmi.entry': 'ab-initio', 'cmi.completion_status': 'unknown', 'cmi.success_status': 'unknown', 'cmi.mode': 'normal', 'cmi.total_time': 'PT0S', 'cmi.scaled_passing_score': '0.8' };
  return { ...base, ...extra };
}
