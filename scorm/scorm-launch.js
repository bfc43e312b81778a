// The SCORM launch page's adapter: finds the LMS's API (SCORM 1.2 window.API or SCORM 2004 window.API_1484_11, in
// the parent chain or the opener's, as ADL's sample code searches), gives the lesson back its saved progress
// (cmi.suspend_data), and reports what the lesson tells its page: one interaction per check and per shown answer,
// the score, completion and success by the mastery rule below, and the progress to restore next time. Every value
// is written in the type the version's data model gives it, read at its strictest (docs/scorm.md says how; the
// tests check it against tests/browser/strict-lms.mjs). Every LMS call is guarded: an LMS that throws, refuses or
// fails is told to the learner once, in words on the page, and Finish/Terminate is still called on leaving.
//
// Mastery rule (the core applies it: lesson.outcome): the exercises are those the lesson shows and counts (all, or
// those data-graded-questions names; data-attempts caps the checks of each). An exercise counts
// as right when its last check matched and its answer was not on screen before it. Score = right / counted, reported
// as raw = that in percent (min 0, max 100: LMSs such as Moodle grade cmi(.core).score.raw out of 100) and, in
// SCORM 2004, as scaled (0 to 1). Completed when every shown exercise was
// checked or had its answer shown; until then incomplete. The score is written only once completed: an LMS with a
// passing score evaluates success from any score it holds (2004 RTE 4.2.21.1; 1.2 RTE 3.4.4 lets an LMS set
// passed/failed from cmi.core.score.raw against the mastery score), so a score mid-attempt reads "failed". Once
// completed: passed when the score reaches the passing fraction (SCORM 2004: cmi.scaled_passing_score; 1.2:
// cmi.student_data.mastery_score / 100; when the LMS gives none: 0.8), else failed.
//
// Graded practice (docs/scorm.md "Numbers of the attempt's own"): with data-attempt-problem="own" on the launch
// page's <html>, each attempt works on its own problem. The lesson's core draws it from an attempt key made of the
// LMS's learner id and an attempt id kept in suspend_data (SCORM has no attempt number a SCO can read: a new attempt,
// entry ab-initio, starts with empty suspend_data and makes a new random id). The drawn seed is kept there too,
// so a resumed attempt and a reviewer see the same numbers even if the key's derivation ever changed.

const version = document.documentElement.dataset.scormVersion === '2004' ? '2004' : '1.2';
const ownProblem = document.documentElement.dataset.attemptProblem === 'own';
const lesson = document.querySelector('qkv-lesson');
// A graded run's other options, as the author wrote them on the launch page's <html> (docs/course-authors.md).
for (const [name, value] of [['attempts', document.documentElement.dataset.attempts], ['graded-questions', document.documentElement.dataset.gradedQuestions]])
  if (value) lesson.setAttribute(name, value);
const defaultPassing = 0.8;
// ADL's sample code gives up after 500 parents; a frame chain is never that deep.
const maxHops = 500;
// The interactions one attempt keeps: SCORM 2004's smallest permitted maximum for cmi.interactions (RTE 4.2.9),
// applied to 1.2 too (which names none). An LMS that already holds this many (or says so: a _count of 400,000,000)
// gets no more: the checks go on counting towards the score and progress, and the learner is told.
const maxInteractions = 250;
const exercisePrefix = 'urn:qkv-lesson:exercise:';
const exerciseExtension = 'urn:qkv-lesson:exercise';
const revealedExtension = 'urn:qkv-lesson:revealed';
const shownByExtension = 'urn:qkv-lesson:shown-by';
const viewedVerb = 'http://id.tincanapi.com/verb/viewed';

// Numbers in the versions' decimal types without exponents (1.2 CMIDecimal, 2004 real(10,7)).
const decimal = (value, digits) => value.toFixed(digits).replace(/\.?0+$/, '') || '0';

// SCORM 1.2's CMIString255/4096 are ASCII, and a line break is refused by some runtimes' 2004 localized-string
// check: free text is written as the body of a JSON string (JSON.parse('"' + value + '"') gives it back), with
// every character outside ASCII as \uXXXX in 1.2.
const asciiEscaped = (text) => text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const escapedText = (text, { ascii }) => {
  const body = JSON.stringify(text).slice(1, -1);
  return ascii ? asciiEscaped(body) : body;
};
// At most the first `max` characters of escaped text, never cutting an escape in two.
const cutEscaped = (text, max) => {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const broken = /\\(u[0-9a-f]{0,3})?$/.exec(cut.replace(/\\\\/g, '__'));
  return broken ? cut.slice(0, broken.index) : cut;
};
// A 2004 characterstring cut to its smallest permitted maximum, marked with an ellipsis when cut.
const withinSpm = (text, spm) => (text.length <= spm ? text : `${text.slice(0, spm - 1)}…`);
// The same for escaped text, never cutting an escape in two (the record still reads back with JSON.parse).
const escapedWithinSpm = (text, spm) => (text.length <= spm ? text : `${cutEscaped(text, spm - 1)}…`);

// SCORM 1.2 choice responses are single characters 0-9 and a-z (RTE 1.2 §3.4.5 CMIFeedback): the n-th option, in
// the order the lesson lists them (the statement's choices), is the n-th of these.
const choiceCharacters = 'abcdefghijklmnopqrstuvwxyz0123456789';
// SCORM 1.2 CMIIdentifier is alphanumeric: ch26-first-token → ch26FirstToken.
const identifier12 = (id) => id.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, '');

// Formats. SCORM 1.2 timespan HHHH:MM:SS.SS and time HH:MM:SS; SCORM 2004 duration PT…S and time with at most
// two decimals of seconds.
function timespan12(ms) {
  const centis = Math.max(0, Math.round(ms / 10));
  const hours = Math.min(9999, Math.floor(centis / 360000));
  const minutes = Math.floor(centis / 6000) % 60;
  const seconds = (centis % 6000) / 100;
  return `${String(hours).padStart(4, '0')}:${String(minutes).padStart(2, '0')}:${seconds.toFixed(2).padStart(5, '0')}`;
}
const duration2004 = (ms) => `PT${Math.max(0, Math.round(ms / 10) / 100)}S`;
const secondsOf = (iso) => {
  const match = /^PT(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(iso ?? '');
  return match ? Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0) : undefined;
};
const two = (n) => String(n).padStart(2, '0');
const time12 = (date) => `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`; // the learner's clock
const time2004 = (date) => date.toISOString().replace(/\.(\d\d)\d*Z$/, '.$1Z');

// The two versions' names for the same things, and how each writes an interaction (interaction12/2004 below).
const dialects = {
  '1.2': {
    apiName: 'API',
    calls: { init: 'LMSInitialize', get: 'LMSGetValue', set: 'LMSSetValue', commit: 'LMSCommit', finish: 'LMSFinish', error: 'LMSGetLastError', errorText: 'LMSGetErrorString' },
    suspendLimit: 4096,
    // The error codes that say the session is not running (RTE 1.2 §3.3.4: 301 Not initialized).
    endedCodes: ['301'],
    status(completed, passed) {
      return { 'cmi.core.lesson_status': !completed ? 'incomplete' : passed ? 'passed' : 'failed' };
    },
    score: ({ raw }) => ({ 'cmi.core.score.min': '0', 'cmi.core.score.max': '100', 'cmi.core.score.raw': raw }),
    passing(get) {
      // CMIDecimal, read strictly: "70abc" or "" is no pass mark (the manifest's then), not 70.
      const text = get('cmi.student_data.mastery_score');
      const mastery = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
      return Number.isFinite(mastery) && mastery >= 0 && mastery <= 100 ? mastery / 100 : undefined;
    },
    // An attempt the LMS already holds as finished: its status and score.
    earlier: (get) => ({ status: get('cmi.core.lesson_status'), raw: get('cmi.core.score.raw'), completed: ['passed', 'failed', 'completed'].includes(get('cmi.core.lesson_status')) }),
    exit: (completed) => ({ 'cmi.core.exit': completed ? '' : 'suspend' }),
    sessionTime: (ms) => ({ 'cmi.core.session_time': timespan12(ms) }),
    mode: 'cmi.core.lesson_mode',
    entry: 'cmi.core.entry',
    learnerId: 'cmi.core.student_id',
    // CMIString4096 is ASCII: the JSON with every other character as \uXXXX (JSON.parse reads it back as it was).
    suspendText: (progress) => asciiEscaped(JSON.stringify(progress)),
    interaction: (entry) => interaction12(entry),
  },
  '2004': {
    apiName: 'API_1484_11',
    calls: { init: 'Initialize', get: 'GetValue', set: 'SetValue', commit: 'Commit', finish: 'Terminate', error: 'GetLastError', errorText: 'GetErrorString' },
    suspendLimit: 64000,
    // The error codes that say the session is not running: before Initialize or after Terminate (RTE 4th Ed.
    // §3.1.7: 122/123 GetValue, 132/133 SetValue, 142/143 Commit).
    endedCodes: ['122', '123', '132', '133', '142', '143'],
    status(completed, passed, settled) {
      return {
        'cmi.completion_status': completed ? 'completed' : 'incomplete',
        'cmi.success_status': !completed ? 'unknown' : passed ? 'passed' : 'failed',
        'cmi.progress_measure': settled,
      };
    },
    score: ({ raw, scaled }) => ({ 'cmi.score.min': '0', 'cmi.score.max': '100', 'cmi.score.raw': raw, 'cmi.score.scaled': scaled }),
    passing(get) {
      const value = get('cmi.scaled_passing_score');
      const scaled = value === '' ? Number.NaN : Number(value);
      return Number.isFinite(scaled) && scaled >= -1 && scaled <= 1 ? scaled : undefined;
    },
    // score.raw only when completed: a value never set is error 403 to read (RTE 4.2.20).
    earlier(get) {
      const completed = get('cmi.completion_status') === 'completed';
      return { completed, status: completed ? get('cmi.success_status') : '', raw: completed ? get('cmi.score.raw') : '' };
    },
    exit: (completed) => ({ 'cmi.exit': completed ? 'normal' : 'suspend' }),
    sessionTime: (ms) => ({ 'cmi.session_time': duration2004(ms) }),
    mode: 'cmi.mode',
    entry: 'cmi.entry',
    learnerId: 'cmi.learner_id',
    suspendText: (progress) => JSON.stringify(progress),
    interaction: (entry) => interaction2004(entry),
  },
};
const dialect = dialects[version];

// Up the parent chain from `start` (a frame of another origin hides its properties: keep climbing past it).
function searchFrom(start, name) {
  let current = start;
  for (let hops = 0; current && hops <= maxHops; hops++) {
    try {
      if (current[name] != null) return current[name];
    } catch {
      // another origin's window: its API is not ours to use
    }
    if (current.parent == null || current.parent === current) break;
    current = current.parent;
  }
  return null;
}

function findApi(name) {
  const found = searchFrom(window, name);
  if (found) return found;
  try {
    const opener = window.top?.opener ?? window.opener;
    if (opener) return searchFrom(opener, name);
  } catch {
    // an opener of another origin
  }
  return null;
}

// What the page says. The note (role=note): no LMS, review, an attempt already finished. The status line
// (role=status): what of the progress the LMS cannot keep. The alert (role=alert): the LMS is not keeping the
// learner's answers, said once. Each also goes to the console once.
function notice(text, level = 'info') {
  const note = document.querySelector('.scorm-note');
  if (note) {
    note.textContent = text;
    note.hidden = false;
  }
  console[level](`qkv-lesson SCORM ${version}: ${text}`);
}
function say(selector, text) {
  const line = document.querySelector(selector);
  if (line && line.textContent !== text) line.textContent = text;
}

// ---- Interactions: one per check, one per shown answer; the exercise, its kind and the values in each version.

// What a statement says about one exercise, in the version-neutral form the writers below take.
function entryOf(statement) {
  const id = statement?.context?.extensions?.[exerciseExtension] ?? (statement?.object?.id?.startsWith(exercisePrefix) ? statement.object.id.slice(exercisePrefix.length) : undefined);
  if (!id) return undefined;
  const definition = statement.object?.definition ?? {};
  const result = statement.result ?? {};
  const name = definition.description?.['en-US'] ?? definition.name?.['en-US'] ?? '';
  if (statement.verb?.id === viewedVerb) {
    // A shown answer: its statement is about the answer (no interaction type, pattern or response of its own).
    const by = statement.context?.extensions?.[shownByExtension] === 'lesson' ? 'by the lesson after two wrong checks' : "at the learner's request";
    return { id, shown: true, graded: false, success: false, question: `Answer shown ${by}. ${name}`, at: new Date(statement.timestamp ?? Date.now()) };
  }
  const graded = typeof result.success === 'boolean';
  const revealed = statement.context?.extensions?.[revealedExtension] === true;
  return {
    id,
    shown: false,
    graded,
    success: graded && result.success === true && !revealed,
    kind: ['choice', 'fill-in'].includes(definition.interactionType) ? definition.interactionType : 'long-fill-in',
    choices: (definition.choices ?? []).map((choice) => choice.id),
    question: name,
    pattern: definition.correctResponsesPattern?.[0],
    response: result.response ?? '',
    at: statement.timestamp ? new Date(statement.timestamp) : new Date(),
    latency: secondsOf(result.duration),
  };
}

const resultOf = (entry, wrong) => (!entry.graded ? 'neutral' : entry.success ? 'correct' : wrong);

// SCORM 1.2 (RTE §3.4.4 cmi.interactions): an alphanumeric id, choices as single characters, free text as escaped
// ASCII of at most 255 characters.
function interaction12(entry) {
  const choiceOf = (choiceId) => choiceCharacters[entry.choices.indexOf(choiceId)];
  // At most 255 characters; a cut is marked "..." (ASCII: no ellipsis character in 1.2).
  const text = (value) => {
    const escaped = escapedText(value, { ascii: true });
    return escaped.length <= 255 ? escaped : `${cutEscaped(escaped, 252)}...`;
  };
  const choiceList = (value) => {
    const characters = value.split('[,]').map(choiceOf);
    return characters.every(Boolean) ? characters.join(',') : undefined;
  };
  const asFeedback = (value) => (value === undefined ? undefined : entry.kind === 'choice' ? choiceList(value) : text(value));
  if (entry.shown) return { id: identifier12(entry.id), time: time12(entry.at), weighting: '0', result: 'neutral' };
  return {
    id: identifier12(entry.id),
    type: entry.kind === 'choice' ? 'choice' : 'fill-in',
    time: time12(entry.at),
    weighting: entry.graded ? '1' : '0',
    student_response: entry.response === undefined || entry.response === '' ? undefined : asFeedback(entry.response),
    result: resultOf(entry, 'wrong'),
    latency: entry.latency === undefined ? undefined : timespan12(entry.latency * 1000),
    'correct_responses.0.pattern': asFeedback(entry.pattern),
  };
}

// SCORM 2004 (RTE §4.2.9): ids and choices as URNs, fill-in items within their 250-character SPM, the challenge's
// line breaks escaped (scorm-again's localized-string check refuses them), the description says when the answer
// was shown.
function interaction2004(entry) {
  const choices = (value) => value.split('[,]').map((choice) => `urn:qkv-lesson:choice:${encodeURIComponent(choice)}`).join('[,]');
  // No spaces beside commas in a fill-in pattern: SCORM's separator is "[,]", but runtimes such as scorm-again
  // also split at bare commas and then refuse the items that start with a space; the lesson reads "[4,7,2]" as it
  // reads "[4, 7, 2]".
  const fillIn = (value, pattern) => value.split('[,]').map((item) => withinSpm(pattern ? item.replace(/\s*,\s*/g, ',').trim() : item, 250)).join('[,]');
  const formatted = (value, pattern) => {
    if (value === undefined) return undefined;
    if (entry.kind === 'choice') return choices(value);
    if (entry.kind === 'fill-in') return fillIn(value, pattern);
    return escapedWithinSpm(escapedText(value, { ascii: false }), 4000);
  };
  const description = withinSpm(entry.question, 250);
  if (entry.shown) return { id: `${exercisePrefix}${entry.id}`, description, timestamp: time2004(entry.at), weighting: '0', result: 'neutral' };
  return {
    id: `${exercisePrefix}${entry.id}`,
    type: entry.kind,
    description,
    timestamp: time2004(entry.at),
    weighting: entry.graded ? '1' : '0',
    // The pattern before the response (a runtime may check the response against it).
    'correct_responses.0.pattern': formatted(entry.pattern, true),
    learner_response: entry.response === undefined ? undefined : formatted(entry.response, false),
    result: resultOf(entry, 'incorrect'),
    latency: entry.latency === undefined ? undefined : duration2004(entry.latency * 1000),
  };
}

// ---- suspend_data within the version's limit ------------------------------------------------------------------

// The progress as text within `limit`: what must be left out goes in this order, each whole (never cut): the edited
// numbers, the challenge's text, then answers from the last. Returns the text and what was left out, in words.
function fitProgress(progress, limit, toText) {
  let kept = progress;
  let text = toText(kept);
  const left = [];
  if (text.length > limit && kept.state) {
    kept = { ...kept, state: '' };
    text = toText(kept);
    left.push('your edited numbers');
  }
  if (text.length > limit && kept.challenge) {
    kept = { ...kept, challenge: '' };
    text = toText(kept);
    left.push('your answer to the challenge');
  }
  const answers = Object.entries(kept.answers ?? {});
  const dropped = [];
  while (text.length > limit && answers.length) {
    dropped.unshift(answers.pop()[0]);
    kept = { ...kept, answers: Object.fromEntries(answers) };
    text = toText(kept);
  }
  if (dropped.length) left.push(`your answers to ${dropped.join(', ')}`);
  return { text, left };
}

class LmsSession {
  constructor(api) {
    this.api = api;
    this.started = performance.now();
    this.written = new Map(); // element → last value written (no repeated writes)
    this.looked = new Set(); // refusals whose error was looked up (once per element, so a refusing LMS is no flood)
    this.finished = false; // Finish/Terminate called, or the LMS ended the session
    this.endedByLms = false; // a refusal's error code said the session is not running (set by refused)
    this.commitTimer = undefined;
    this.passing = undefined; // the passing fraction, read once
    this.completed = false;
    this.failureTold = false;
    this.failuresWarned = new Set(); // the kinds of failure the console has heard of
    // Review mode (the LMS shows a finished attempt again), or an attempt the LMS already holds as completed: the
    // answers come back, nothing is recorded.
    this.reviewing = this.get(dialect.mode) === 'review';
    this.earlier = this.reviewing ? undefined : dialect.earlier((element) => this.get(element));
    this.closed = this.reviewing || this.earlier?.completed === true;
    // One interaction per check: the next index continues what the LMS holds (a resumed attempt), read once per
    // launch and bounded, so a hostile count costs nothing.
    const held = Number(this.get('cmi.interactions._count'));
    this.nextInteraction = Number.isSafeInteger(held) && held > 0 ? Math.min(held, maxInteractions) : 0;
    this.leftOut = ''; // what of the progress suspend_data cannot keep, in words
    this.journalFull = ''; // that no more interactions are written, in words
  }

  // Every LMS call goes through here: a call that throws is caught and told, never left to escape.
  call(name, ...args) {
    try {
      return String(this.api[dialect.calls[name]](...args));
    } catch (error) {
      this.failed(`its ${dialect.calls[name]} call failed (${error?.message ?? error})`);
      return undefined;
    }
  }

  // The learner is told once, in words, that the LMS is not keeping their answers; the console gets the detail.
  failed(detail) {
    const kind = detail.replace(/\.\d+\./g, '.n.').replace(/ = .*$/, '');
    if (!this.failuresWarned.has(kind)) {
      this.failuresWarned.add(kind);
      console.warn(`qkv-lesson SCORM ${version}: the LMS is not keeping this lesson's data: ${detail}`);
    }
    if (this.failureTold) return;
    this.failureTold = true;
    say('.scorm-alert', 'Your answers are not being saved: the learning platform (LMS) did not accept what this lesson sent it. What you do here is still checked on this page, but it may not be there when you come back, and your teacher may not see it. You can tell your teacher; reloading the course page may help.');
  }

  // A call the LMS refused: its error code is asked once per `key` (so a refusing LMS is no flood), or each time
  // when `probe` (an interaction's id, a commit: the calls that tell whether the session still runs). A code that
  // says the session is not running sets endedByLms for the caller (restartIfEnded); any other is told.
  refused(what, key, probe) {
    const first = !this.looked.has(key);
    this.looked.add(key);
    const code = first || probe ? this.call('error') : undefined;
    if (code !== undefined && dialect.endedCodes.includes(code)) {
      this.endedByLms = true;
      return;
    }
    this.failed(`${what} (${first ? `error ${code}: ${code === undefined ? '' : this.call('errorText', code)}` : 'as before'})`);
  }

  // The session ended while the lesson still runs (the LMS ended it, or the page came back from the back/forward
  // cache after pagehide ended it): Initialize once more; if the LMS refuses, the learner is told that nothing is
  // recorded from now on, and no more calls are made. True when the session runs again.
  restart() {
    this.endedByLms = false;
    this.finished = true;
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    if (this.call('init', '') === 'true') {
      this.finished = false;
      this.written.clear(); // written again in full: the new session may not hold the last values
      console.info(`qkv-lesson SCORM ${version}: the session with the LMS had ended; it was started again.`);
      return true;
    }
    const text = "Your answers are no longer being recorded: this lesson's session with the learning platform (LMS) has ended. What you do here is still checked on this page; to record it, reopen the lesson from the course.";
    if (!this.endedTold) console.warn(`qkv-lesson SCORM ${version}: ${text}`);
    this.endedTold = true;
    say('.scorm-alert', text);
    return false;
  }

  // After a refusal: when its code said the session had ended, start it again (true when it runs).
  restartIfEnded() {
    return this.endedByLms && this.restart();
  }

  get(element) {
    const value = this.call('get', element);
    return value === undefined || value === 'undefined' || value === 'null' ? '' : value;
  }

  set(element, value, { force = false, probe = false } = {}) {
    const text = String(value);
    if (!force && this.written.get(element) === text) return true;
    const answer = this.call('set', element, text);
    if (answer === 'true') {
      this.written.set(element, text);
      return true;
    }
    if (answer !== undefined) this.refused(`it refused ${element} = ${JSON.stringify(text.slice(0, 80))}`, element.replace(/\.\d+\./g, '.n.'), probe);
    return false;
  }

  setAll(values, options) {
    for (const [element, value] of Object.entries(values)) if (value !== undefined) this.set(element, value, options);
  }

  commit() {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    if (this.finished || this.closed) return;
    const failed = (answer) => answer !== undefined && answer !== 'true';
    if (!failed(this.call('commit', ''))) return;
    this.refused('its commit failed', 'commit', true);
    if (!this.restartIfEnded()) return;
    this.report();
    if (failed(this.call('commit', ''))) this.refused('its commit failed', 'commit', false);
  }

  // Typing in the challenge box or editing numbers changes the progress often: commit once it settles.
  commitSoon() {
    if (this.finished || this.closed || this.commitTimer !== undefined) return;
    this.commitTimer = setTimeout(() => this.commit(), 2000);
  }

  // The saved progress; a first attempt (entry ab-initio) has none to read (2004: reading it would be error 403).
  savedProgress() {
    if (this.get(dialect.entry) === 'ab-initio') return undefined;
    const text = this.get('cmi.suspend_data');
    if (!text) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      console.warn(`qkv-lesson SCORM ${version}: cmi.suspend_data is not this lesson's progress; starting afresh`);
      return undefined;
    }
  }

  // The attempt's own problem (graded practice): the one kept in suspend_data, else a new attempt's key, which the
  // lesson's core turns into a seed. Sets what the lesson starts from; saved progress still wins over it.
  startOwnProblem(saved) {
    const kept = saved?.attempt;
    const id = typeof kept?.id === 'string' && /^[0-9a-f]{32}$/.test(kept.id) ? kept.id : randomAttemptId();
    const seed = typeof kept?.seed === 'string' && /^\d{1,16}$/.test(kept.seed) ? kept.seed : undefined;
    this.attempt = { id, seed };
    // The key marks a graded attempt even when the kept seed (state, which wins over it) gives the numbers.
    if (seed) lesson.setAttribute('state', `v=${seed}`);
    lesson.setAttribute('attempt-key', `scorm:${this.get(dialect.learnerId)}:${id}`);
  }

  // What suspend_data keeps of the attempt: its id and the seed of its problem, once the lesson drew it.
  keptAttempt() {
    this.attempt.seed ??= lesson.problemSeed ?? undefined;
    return this.attempt;
  }

  // The progress within the version's limit; what does not fit is said on the page (and on the console once).
  suspendData(progress) {
    const { text, left } = fitProgress(progress, dialect.suspendLimit, dialect.suspendText);
    const words = left.length ? `This learning platform keeps at most ${dialect.suspendLimit.toLocaleString('en')} characters of your progress (SCORM ${version}), so ${left.join(' and ')} will not be restored when you come back.${left.includes('your answer to the challenge') ? ' Keep a copy of your challenge text if you want it later.' : ''}` : '';
    if (words && words !== this.leftOut) console.warn(`qkv-lesson SCORM ${version}: ${words}`);
    this.leftOut = words;
    this.sayStatus();
    return text;
  }

  // The status line: what of the progress is not kept, and that checks are no longer recorded one by one.
  sayStatus() {
    say('.scorm-status', [this.leftOut, this.journalFull].filter(Boolean).join(' '));
  }

  // The mastery rule (see the top of this file): the core grades (lesson.outcome), this reports.
  report() {
    if (this.finished || this.closed || lesson.dataset.state !== 'ready') return undefined;
    if (this.passing === undefined) {
      // The LMS's passing score is the lesson's pass mark (its results view shows it); one the core refuses (out of
      // its range) leaves the manifest's 0.8.
      this.passing = lesson.passingFraction = dialect.passing((element) => this.get(element)) ?? defaultPassing;
      if (!lesson.outcome()) this.passing = lesson.passingFraction = defaultPassing;
    }
    const outcome = lesson.outcome();
    if (!outcome) return undefined;
    if (outcome.completed) this.setAll(dialect.score({ raw: decimal(outcome.percent, 2), scaled: decimal(outcome.scaled, 7) }));
    // progress_measure: the share of questions settled, a fraction of two counts the core gave.
    this.setAll(dialect.status(outcome.completed, outcome.passed, decimal(outcome.counted ? outcome.settled / outcome.counted : 0, 7)));
    const progress = lesson.progress;
    if (progress) this.set('cmi.suspend_data', this.suspendData(this.attempt ? { ...progress, attempt: this.keptAttempt() } : progress));
    this.completed = outcome.completed;
    return outcome;
  }

  // Appends one interaction (SCORM 1.2 interactions cannot be read back, and 2004 keeps every check too, so first
  // tries stay for item analysis): the last one for an id is the current one.
  interaction(statement) {
    if (this.finished || this.closed) return;
    const entry = entryOf(statement);
    if (!entry) return;
    if (this.nextInteraction >= maxInteractions) {
      if (!this.journalFull) {
        this.journalFull = `This learning platform keeps at most ${maxInteractions} records of your answers in one attempt, and this attempt has no room left: your checks are not recorded one by one from now on, though your score and progress still are.`;
        console.warn(`qkv-lesson SCORM ${version}: ${this.journalFull}`);
        this.sayStatus();
      }
      return;
    }
    const base = `cmi.interactions.${this.nextInteraction}`;
    const values = dialect.interaction(entry);
    // The id first, then the type: 2004 refuses anything else of an interaction before them (RTE 4.2.9, error 408).
    // A refused id whose error says the session ended is written again once the session runs again.
    const id = () => this.set(`${base}.id`, values.id, { force: true, probe: true });
    if (!id() && !(this.restartIfEnded() && id())) return;
    this.nextInteraction++;
    for (const [element, value] of Object.entries(values)) if (element !== 'id' && value !== undefined) this.set(`${base}.${element}`, value, { force: true });
  }

  // The page came back from the back/forward cache: pagehide ended the session, so it is started again (or the
  // learner told that nothing is recorded).
  restored() {
    if (!this.finished) return;
    if (this.restart()) {
      this.report();
      this.commit();
    }
  }

  exit() {
    if (this.finished) return;
    if (!this.closed) {
      this.report();
      this.setAll(dialect.exit(this.completed));
      this.setAll(dialect.sessionTime(performance.now() - this.started));
      this.commit();
    }
    this.finished = true;
    clearTimeout(this.commitTimer);
    this.call('finish', '');
  }
}

// A new attempt's id: 128 random bits in hex (crypto.randomUUID needs a secure context; an LMS may not be one).
const randomAttemptId = () => [...crypto.getRandomValues(new Uint8Array(16))].map((byte) => byte.toString(16).padStart(2, '0')).join('');

// The words for an attempt the LMS already holds as completed.
function earlierResult({ status, raw }) {
  const score = raw === '' ? '' : ` with a score of ${raw} out of 100`;
  const verdict = status === 'passed' || status === 'failed' ? ` (${status})` : '';
  return `You have already completed this lesson${score}${verdict}. Your answers are shown as you left them; what you do now is not recorded and does not change your result.`;
}

// Initialize, guarded: false or a throw means no session, which the learner reads in the alert line; a throw may
// still have opened one, so Finish/Terminate is attempted on leaving.
function initialize(api) {
  const notStarted = (why) => {
    const text = `Your answers are not being saved: the learning platform (LMS) ${why}. The lesson still checks your answers on this page.`;
    say('.scorm-alert', text);
    console.warn(`qkv-lesson SCORM ${version}: ${text}`);
  };
  try {
    if (String(api[dialect.calls.init]('')) === 'true') return true;
    let code = '';
    try {
      code = ` (error ${api[dialect.calls.error]()})`;
    } catch {
      // the error call fails too: the code stays unknown
    }
    notStarted(`did not start this session${code}`);
  } catch (error) {
    notStarted(`failed to start this session (${error?.message ?? error})`);
    const finish = () => {
      try {
        api[dialect.calls.finish]('');
      } catch {
        // nothing more to try
      }
    };
    addEventListener('pagehide', finish, { once: true });
  }
  return false;
}

async function start() {
  const api = findApi(dialect.apiName);
  if (!api) {
    notice(`No learning platform (LMS) was found to report to: the lesson runs on its own and your answers are not recorded.`);
    return;
  }
  if (!initialize(api)) return;
  const session = new LmsSession(api);
  if (session.reviewing) notice('Review mode: your earlier answers are shown; nothing you do now is recorded.');
  else if (session.closed) notice(earlierResult(session.earlier));
  const saved = session.savedProgress();
  if (ownProblem && !(session.closed && !saved?.attempt)) session.startOwnProblem(saved);
  // Listen before the lesson can be ready: every event after this point reaches the LMS.
  lesson.addEventListener('qkv-lesson-answer', (event) => {
    session.interaction(event.detail);
    session.report();
    session.commit();
  });
  lesson.addEventListener('qkv-lesson-progress', () => {
    session.report();
    session.commitSoon();
  });
  const whenReady = () => {
    session.report();
    session.commit();
  };
  lesson.addEventListener('qkv-lesson-ready', whenReady);
  // The session ends only when the page really goes: pagehide (also in a frame the LMS removes). Not beforeunload:
  // it comes before any frame's "Leave site?" prompt, and a learner who chooses to stay would be recorded nowhere.
  // A page restored from the back/forward cache (pageshow, persisted) starts the session again.
  addEventListener('pagehide', () => session.exit());
  addEventListener('pageshow', (event) => {
    if (event.persisted) session.restored();
  });
  await customElements.whenDefined('qkv-lesson');
  if (saved) lesson.restoreProgress(saved);
  if (lesson.dataset.state === 'ready') whenReady();
}

start();
