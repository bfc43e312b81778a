// Appended to the module's JavaScript (--post-js). embind checks how many arguments a call gets and throws
// its own BindingError before C++ runs. To keep the contract total (every call returns {ok, ...}, none
// throws), a call with the wrong number of arguments hands C++ its arguments as one array, which C++
// refuses as a value like any other malformed request ("request must be an object, got an array").
// Written in the plain JavaScript that Emscripten's own optimiser parses.
Module['onRuntimeInitialized'] = (function (previous) {
  return function () {
    var arity = { fixture: 0, report: 0, trace: 0, evaluate: 1, selfScore: 1, selfScoreSummary: 1, findSeed: 1,
                  exercises: 1, checkAnswer: 1, provenance: 1, numpyRandn: 1, evidence: 1, bench: 1, features: 0, findSeedWithProgress: 2,
                  scale: 1 };
    Object.keys(arity).forEach(function (name) {
      var call = Module[name];
      var count = arity[name];
      if (typeof call !== 'function') return;
      Module[name] = function () {
        var args = Array.prototype.slice.call(arguments);
        if (args.length === count) return call.apply(null, args);
        var padded = [args];
        while (padded.length < count) padded.push(undefined);
        return call.apply(null, padded.slice(0, count));
      };
    });
    if (previous) previous();
  };
})(Module['onRuntimeInitialized']);
